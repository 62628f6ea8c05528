// `edgeadmm devices add ID [--psk-file F] | list | disable ID | enable ID |
// remove ID`: the device registry.
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <string>

#include "cli_command.h"
#include "edgeadmm/registry/device_registry.h"
#include "edgeadmm/registry/hex.h"
#include "edgeadmm/store/database.h"

namespace edgeadmm::cli {
namespace {

struct DevicesOptions {
  std::string db_path = store::DefaultDatabasePath();
  std::string id;
  std::string psk_file;
};

[[noreturn]] void Fail(const std::string& what, Status status) {
  std::fprintf(stderr, "edgeadmm devices: %s: %s\n", what.c_str(),
               status.str());
  throw CLI::RuntimeError(1);
}

store::Database OpenDatabase(const std::string& path) {
  auto db = store::Database::Open(path);
  if (!db.ok()) Fail("cannot open database " + path, db.status());
  return std::move(db).value();
}

// Writes the PSK as hex to a new file readable by its owner only.
void WritePskFile(const std::string& path, const std::string& hex) {
  const int fd =
      open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    std::perror(("edgeadmm devices: " + path).c_str());
    throw CLI::RuntimeError(1);
  }
  const std::string line = hex + "\n";
  const bool ok =
      write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  if (close(fd) != 0 || !ok) {
    std::fprintf(stderr, "edgeadmm devices: cannot write %s\n", path.c_str());
    throw CLI::RuntimeError(1);
  }
}

void RunAdd(const DevicesOptions& o) {
  store::Database db = OpenDatabase(o.db_path);
  registry::DeviceRegistry reg(db);
  auto psk = reg.Add(o.id);
  if (!psk.ok()) Fail("cannot add " + o.id, psk.status());
  const std::string hex = registry::ToHex(*psk);
  if (!o.psk_file.empty()) {
    WritePskFile(o.psk_file, hex);
    std::printf("added %s; PSK written to %s (mode 0600)\n", o.id.c_str(),
                o.psk_file.c_str());
  } else {
    std::printf("added %s\npsk %s\n(the PSK is shown only once)\n",
                o.id.c_str(), hex.c_str());
  }
}

void RunList(const DevicesOptions& o) {
  store::Database db = OpenDatabase(o.db_path);
  auto devices = registry::DeviceRegistry(db).List();
  if (!devices.ok()) Fail("cannot list", devices.status());
  for (const registry::DeviceRecord& d : *devices) {
    std::printf("%s\t%s\t%lld\n", d.id.c_str(),
                d.enabled ? "enabled" : "disabled",
                static_cast<long long>(d.created_at));
  }
}

void RunChange(const DevicesOptions& o, const char* verb,
               Status (registry::DeviceRegistry::*change)(std::string_view)) {
  store::Database db = OpenDatabase(o.db_path);
  registry::DeviceRegistry reg(db);
  const Status status = (reg.*change)(o.id);
  if (!status.ok()) Fail(std::string("cannot ") + verb + " " + o.id, status);
  std::printf("%sd %s\n", verb, o.id.c_str());
}

void AddDevicesCommands(CLI::App& app) {
  auto options = std::make_shared<DevicesOptions>();
  CLI::App* devices = app.add_subcommand("devices", "Device registry and PSKs");
  devices->require_subcommand(1);
  devices->fallthrough();
  devices->add_option("--db", options->db_path, "Aggregator database")
      ->capture_default_str();

  CLI::App* add = devices->add_subcommand(
      "add", "Enroll a device; prints its new random PSK once");
  add->add_option("id", options->id, "Device id (= DTLS PSK identity)")
      ->required();
  add->add_option("--psk-file", options->psk_file,
                  "Write the PSK (hex) to this new file, mode 0600, instead");
  add->callback([options] { RunAdd(*options); });

  devices->add_subcommand("list", "List devices")->callback([options] {
    RunList(*options);
  });

  struct Change {
    const char* name;
    const char* verb;
    const char* help;
    Status (registry::DeviceRegistry::*change)(std::string_view);
  };
  static const Change kChanges[] = {
      {"disable", "disable", "Disable a device (it can no longer handshake)",
       &registry::DeviceRegistry::Disable},
      {"enable", "enable", "Re-enable a disabled device",
       &registry::DeviceRegistry::Enable},
      {"remove", "remove", "Remove a device and its PSK",
       &registry::DeviceRegistry::Remove},
  };
  for (const Change& c : kChanges) {
    CLI::App* sub = devices->add_subcommand(c.name, c.help);
    sub->add_option("id", options->id, "Device id")->required();
    sub->callback([options, c] { RunChange(*options, c.verb, c.change); });
  }
}

}  // namespace

EDGEADMM_CLI_COMMAND(AddDevicesCommands);

}  // namespace edgeadmm::cli
