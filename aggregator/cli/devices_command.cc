// `edgeadmm devices add ID... (--psk-file F | --psk-dir DIR | --print-keys) |
// add --count N [--prefix P] --psk-dir DIR | list | disable ID | enable ID |
// remove ID | rotate-key ID (--psk-file F | --print-keys) | lifetime ID
// [--ledgers local|central] (--epsilon E [--delta D] | --none)`: the device
// registry and its lifetime budgets (docs/privacy.md, "Lifetime budget"). Many
// ids are enrolled in one transaction. PSKs go to stdout only with --print-keys
// (docs/security.md, "Keys at rest").
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "cli_command.h"
#include "command_error.h"
#include "edgeadmm/host/hex.h"
#include "edgeadmm/privacy/rdp_filter.h"
#include "edgeadmm/registry/device_registry.h"
#include "edgeadmm/rounds/round_accountant.h"
#include "edgeadmm/rounds/round_store.h"
#include "edgeadmm/store/database.h"

namespace edgeadmm::cli {
namespace {

struct DevicesOptions {
  std::string db_path = store::DefaultDatabasePath();
  std::string id;
  std::vector<std::string> ids;
  std::string psk_file;
  std::string psk_dir;
  int64_t count = 0;  // --count; 0: not given
  std::string prefix = "dev-";
  bool print_keys = false;
  double lifetime_epsilon = 0;
  double lifetime_delta = 1e-5;
  bool no_lifetime = false;
  std::string ledgers = "local";  // --ledgers: local or central
};

constexpr const char* kCommand = "edgeadmm devices";
// `add --count` enrolls at most this many devices at once.
constexpr int64_t kMaxCount = 1'000'000;

host::ErrorOr<store::Database> OpenDatabase(const std::string& path) {
  return Checked(store::Database::Open(path), "cannot open database " + path);
}

// Writes the PSK as hex to a new file readable by its owner only; false
// (and a message naming the file) if it exists or cannot be written.
bool WritePskFile(const std::string& path, const std::string& hex) {
  const int fd =
      open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    std::fprintf(stderr, "edgeadmm devices: %s: %s\n", path.c_str(),
                 std::strerror(errno));
    return false;
  }
  const std::string line = hex + "\n";
  const bool ok =
      write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  if (close(fd) != 0 || !ok) {
    std::fprintf(stderr, "edgeadmm devices: cannot write %s\n", path.c_str());
    unlink(path.c_str());
    return false;
  }
  return true;
}

// Where new PSKs go: a file, a folder or, only when asked, stdout.
host::Error CheckKeyDestination(const DevicesOptions& o) {
  const int given = !o.psk_file.empty() + !o.psk_dir.empty() + o.print_keys;
  if (given == 0) {
    return host::Error::InvalidArgument(
        "PSKs are not printed unless asked: give --psk-file, --psk-dir or "
        "--print-keys");
  }
  if (o.print_keys && given > 1) {
    return host::Error::InvalidArgument(
        "--print-keys cannot be combined with --psk-file or --psk-dir");
  }
  return host::Error::Ok();
}

// The ids to enroll: the positional ids, or --count ids <prefix><index>
// with the index zero-padded to at least 5 digits (dev-00000, ...).
// INVALID_ARGUMENT for options `add` cannot take (a usage error).
host::ErrorOr<std::vector<std::string>> IdsToAdd(const DevicesOptions& o) {
  if (o.count < 0 || o.count > kMaxCount) {
    return host::Error::InvalidArgument("--count must be in [1, " +
                                        std::to_string(kMaxCount) + "]");
  }
  if (o.count > 0 && !o.ids.empty()) {
    return host::Error::InvalidArgument("give ids or --count, not both");
  }
  if (o.count == 0 && o.ids.empty()) {
    return host::Error::InvalidArgument("give at least one id or --count");
  }
  const size_t n = o.count == 0 ? o.ids.size() : static_cast<size_t>(o.count);
  if (!o.psk_file.empty() && (n != 1 || !o.psk_dir.empty())) {
    return host::Error::InvalidArgument(
        "--psk-file takes one id; use --psk-dir for many");
  }
  EDGEADMM_HOST_TRY(CheckKeyDestination(o));
  if (o.count == 0) return o.ids;
  const int digits =
      std::max<int>(5, static_cast<int>(std::to_string(o.count - 1).size()));
  std::vector<std::string> ids;
  ids.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    std::string index = std::to_string(i);
    ids.push_back(o.prefix + std::string(digits - index.size(), '0') + index);
  }
  return ids;
}

// Enrolls every id in one transaction. With --psk-dir each PSK goes to
// DIR/<id> (new files, mode 0600; the directory is created with mode 0700),
// the layout `edgeadmm-fleet connect --psk-dir` reads. The files are written
// before the commit: if one cannot be written, nothing is enrolled and the
// files already written are removed.
host::Error RunAdd(const DevicesOptions& o,
                   const std::vector<std::string>& ids) {
  if (!o.psk_dir.empty() && mkdir(o.psk_dir.c_str(), 0700) != 0 &&
      errno != EEXIST) {
    return host::Error::Unavailable("cannot create " + o.psk_dir + ": " +
                                    std::strerror(errno));
  }
  EDGEADMM_HOST_TRY_ASSIGN(store::Database db, OpenDatabase(o.db_path));
  registry::DeviceRegistry reg(db);
  std::vector<std::string> written;
  std::string printed;
  const auto write_keys = [&](const registry::DeviceRegistry::PskList& psks) {
    for (size_t i = 0; i < ids.size(); ++i) {
      const std::string hex = host::ToHex(psks[i]);
      std::string path =
          o.psk_dir.empty() ? o.psk_file : o.psk_dir + "/" + ids[i];
      if (path.empty()) {
        printed += ids.size() == 1 ? "added " + ids[i] + "\npsk " + hex + "\n"
                                   : ids[i] + " " + hex + "\n";
      } else if (WritePskFile(path, hex)) {
        written.push_back(std::move(path));
      } else {
        return Status::Unavailable();
      }
    }
    return Status::Ok();
  };
  size_t failed = 0;
  auto psks = reg.AddMany(ids, &failed, write_keys);
  if (!psks.ok()) {
    for (const std::string& path : written) unlink(path.c_str());
    return Failed(failed < ids.size()
                      ? "cannot add " + ids[failed]
                      : "cannot add " + std::to_string(ids.size()) +
                            " devices (nothing enrolled)",
                  psks.status());
  }
  if (!o.psk_file.empty()) {
    std::printf("added %s; PSK written to %s (mode 0600)\n", ids[0].c_str(),
                o.psk_file.c_str());
  } else if (!o.psk_dir.empty()) {
    std::printf("added %zu devices; PSKs written to %s/<id> (mode 0600)\n",
                ids.size(), o.psk_dir.c_str());
  } else {
    std::fputs(printed.c_str(), stdout);
    std::printf("(%s shown only once)\n",
                ids.size() == 1 ? "the PSK is" : "PSKs are");
  }
  return host::Error::Ok();
}

// Replaces the PSK of `o.id`; the new key goes to --psk-file (a new file,
// mode 0600, written before the commit) or, with --print-keys, to stdout.
host::Error RunRotateKey(const DevicesOptions& o) {
  EDGEADMM_HOST_TRY_ASSIGN(store::Database db, OpenDatabase(o.db_path));
  registry::DeviceRegistry reg(db);
  bool written = false;
  const auto write_key = [&](const std::vector<uint8_t>& psk) {
    if (o.psk_file.empty()) return Status::Ok();
    written = WritePskFile(o.psk_file, host::ToHex(psk));
    return written ? Status::Ok() : Status::Unavailable();
  };
  auto psk = reg.RotatePsk(o.id, write_key);
  if (!psk.ok()) {
    // Written before a commit that failed: it holds a key never stored.
    if (written) unlink(o.psk_file.c_str());
    return Failed("cannot rotate the key of " + o.id, psk.status());
  }
  if (o.print_keys) {
    std::printf("rotated %s\npsk %s\n(the PSK is shown only once)\n",
                o.id.c_str(), host::ToHex(*psk).c_str());
  } else {
    std::printf("rotated %s; PSK written to %s (mode 0600)\n", o.id.c_str(),
                o.psk_file.c_str());
  }
  return host::Error::Ok();
}

const std::optional<registry::LifetimeBudget>& BudgetOf(
    const registry::DeviceRecord& d, registry::LifetimeLedger ledger) {
  return ledger == registry::LifetimeLedger::kLocal ? d.lifetime : d.central;
}

// What the stored jobs spent of the `ledger` lifetime budget of each
// `budgeted` device, by id: every job's newest curve of that kind, summed,
// converted by the budget's RDP filter (its order, its δ) as the daemon
// does (privacy/rdp_filter.h), into `spent`. (An out parameter: GCC 12
// reports a false -Wfree-nonheap-object for an ErrorOr of the map
// destroyed in RunList's loop.)
host::Error LifetimeSpent(store::Database& db,
                          const std::vector<registry::DeviceRecord>& budgeted,
                          registry::LifetimeLedger ledger,
                          std::unordered_map<std::string, double>& spent) {
  const rounds::PrivacyRoundAccountant accountant;
  std::unordered_set<std::string> ids;
  for (const registry::DeviceRecord& d : budgeted) ids.insert(d.id);
  // Job 0 does not exist: every job counts as an earlier one.
  EDGEADMM_HOST_TRY_ASSIGN(const auto curves,
                           Checked(rounds::RoundStore(db, 0).EarlierCurves(
                                       ledger, ids, accountant.order_count()),
                                   "cannot read the ledgers"));
  spent.clear();
  for (const registry::DeviceRecord& d : budgeted) {
    const registry::LifetimeBudget& budget = *BudgetOf(d, ledger);
    EDGEADMM_HOST_TRY_ASSIGN(
        const privacy::RdpFilter filter,
        privacy::RdpFilter::Create(accountant.orders(), budget.epsilon,
                                   budget.delta));
    const auto it = curves.find(d.id);
    spent[d.id] = it == curves.end() ? 0.0 : filter.Spent(it->second);
  }
  return host::Error::Ok();
}

// One lifetime budget with what it bounds (docs/privacy.md, "Lifetime
// budget"): the ledgers of every job composed in RDP, the filter's order,
// its δ, and the observer. +inf names its cause.
std::string LifetimeText(const registry::DeviceRecord& d,
                         registry::LifetimeLedger ledger, double spent) {
  const bool local = ledger == registry::LifetimeLedger::kLocal;
  const std::optional<registry::LifetimeBudget>& budget = BudgetOf(d, ledger);
  if (!budget.has_value()) {
    return local ? "no lifetime budget" : "no central lifetime budget";
  }
  const rounds::PrivacyRoundAccountant accountant;
  auto filter = privacy::RdpFilter::Create(accountant.orders(), budget->epsilon,
                                           budget->delta);
  char text[400];
  std::snprintf(
      text, sizeof(text),
      local ? "lifetime local epsilon %.4g of %.4g (every job's local "
              "gaussian, replace-one, rdp filter at order %g, delta %.3g, "
              "against the gateway)%s"
            : "lifetime central epsilon %.4g of %.4g (every job's central "
              "ledger, zero-out, rdp filter at order %g, delta %.3g, against "
              "release observers)%s",
      spent, budget->epsilon, filter.ok() ? filter->order() : 0.0,
      budget->delta,
      !std::isinf(spent) ? ""
      : local ? ": unbounded, a job released an upload without device noise "
                "(trusted-aggregator) or beyond the sampler's range"
              : ": unbounded, a job's releases have no proven central bound "
                "(pp-admm, admm-sharing) or noise beyond the sampler's range");
  return text;
}

// `unix_seconds` as ISO 8601 UTC ("2026-11-28T17:20:05Z").
std::string IsoUtc(int64_t unix_seconds) {
  const auto t = static_cast<std::time_t>(unix_seconds);
  std::tm utc{};
  char text[32];
  if (gmtime_r(&t, &utc) == nullptr ||
      std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &utc) == 0) {
    return std::to_string(unix_seconds);
  }
  return text;
}

host::Error RunList(const DevicesOptions& o) {
  EDGEADMM_HOST_TRY_ASSIGN(store::Database db, OpenDatabase(o.db_path));
  EDGEADMM_HOST_TRY_ASSIGN(
      const std::vector<registry::DeviceRecord> devices,
      Checked(registry::DeviceRegistry(db).List(), "cannot list"));
  constexpr registry::LifetimeLedger kLedgers[] = {
      registry::LifetimeLedger::kLocal, registry::LifetimeLedger::kCentral};
  std::unordered_map<std::string, double> spent[2];
  for (size_t k = 0; k < 2; ++k) {
    std::vector<registry::DeviceRecord> budgeted;
    for (const registry::DeviceRecord& d : devices) {
      if (BudgetOf(d, kLedgers[k]).has_value()) budgeted.push_back(d);
    }
    EDGEADMM_HOST_TRY(LifetimeSpent(db, budgeted, kLedgers[k], spent[k]));
  }
  std::printf(
      "id\tstate\tenrolled (UTC)\tlifetime budget\tcentral lifetime "
      "budget\n");
  for (const registry::DeviceRecord& d : devices) {
    std::string budgets;
    for (size_t k = 0; k < 2; ++k) {
      const auto it = spent[k].find(d.id);
      budgets += "\t" + LifetimeText(d, kLedgers[k],
                                     it == spent[k].end() ? 0.0 : it->second);
    }
    std::printf("%s\t%s\t%s%s\n", d.id.c_str(),
                d.enabled ? "enabled" : "disabled",
                IsoUtc(d.created_at).c_str(), budgets.c_str());
  }
  return host::Error::Ok();
}

// Sets or removes the lifetime budget of `o.id` on `o.ledgers` and prints
// what its jobs spent so far.
host::Error RunLifetime(const DevicesOptions& o) {
  EDGEADMM_HOST_TRY_ASSIGN(store::Database db, OpenDatabase(o.db_path));
  registry::DeviceRegistry reg(db);
  const registry::LifetimeLedger ledger =
      o.ledgers == "central" ? registry::LifetimeLedger::kCentral
                             : registry::LifetimeLedger::kLocal;
  std::optional<registry::LifetimeBudget> budget;
  if (!o.no_lifetime) {
    budget = registry::LifetimeBudget{o.lifetime_epsilon, o.lifetime_delta};
  }
  EDGEADMM_HOST_TRY(Failed("cannot set the lifetime budget of " + o.id,
                           reg.SetLifetimeBudget(o.id, budget, ledger)));
  EDGEADMM_HOST_TRY_ASSIGN(const registry::DeviceRecord d,
                           Checked(reg.Get(o.id), "cannot read " + o.id));
  if (!BudgetOf(d, ledger).has_value()) {
    std::printf("%s: %s\n", o.id.c_str(), LifetimeText(d, ledger, 0.0).c_str());
    return host::Error::Ok();
  }
  std::unordered_map<std::string, double> spent;
  EDGEADMM_HOST_TRY(LifetimeSpent(db, {d}, ledger, spent));
  std::printf(
      "%s: %s; the daemon stops sampling it before a round would exceed the "
      "budget\n",
      o.id.c_str(), LifetimeText(d, ledger, spent.at(o.id)).c_str());
  return host::Error::Ok();
}

host::Error RunChange(
    const DevicesOptions& o, const char* verb,
    Status (registry::DeviceRegistry::*change)(std::string_view)) {
  EDGEADMM_HOST_TRY_ASSIGN(store::Database db, OpenDatabase(o.db_path));
  registry::DeviceRegistry reg(db);
  EDGEADMM_HOST_TRY(
      Failed(std::string("cannot ") + verb + " " + o.id, (reg.*change)(o.id)));
  std::printf("%sd %s\n", verb, o.id.c_str());
  return host::Error::Ok();
}

// devices lifetime ID --epsilon E [--delta D] | --none.
void AddLifetimeCommand(host::Command& devices,
                        const std::shared_ptr<DevicesOptions>& options) {
  host::Command lifetime = devices.AddSubcommand(
      "lifetime",
      "Set a device's privacy budget across all its jobs, on its local or "
      "central ledgers (or --none)");
  lifetime.AddOption("id", options->id, "Device id").Required();
  const host::CommandOption epsilon =
      lifetime.AddOption("--epsilon", options->lifetime_epsilon,
                         "Lifetime epsilon of the device's ledgers");
  lifetime
      .AddOption("--ledgers", options->ledgers,
                 "Which ledgers of every job the budget bounds: local "
                 "(against the gateway) or central (against release "
                 "observers)")
      .OneOf({"local", "central"})
      .CaptureDefault();
  lifetime
      .AddOption("--delta", options->lifetime_delta,
                 "Delta of the lifetime budget")
      .CaptureDefault();
  lifetime.AddFlag("--none", options->no_lifetime,
                   "Remove the lifetime budget");
  lifetime.OnRun([options, epsilon] {
    const DevicesOptions& o = *options;
    const bool given = epsilon.Given();
    if (o.no_lifetime == given) {
      Exit("edgeadmm devices lifetime", "give --epsilon E or --none", 2);
    }
    if (given &&
        !(o.lifetime_epsilon > 0 && std::isfinite(o.lifetime_epsilon) &&
          o.lifetime_delta > 0 && o.lifetime_delta < 1)) {
      Exit("edgeadmm devices lifetime",
           "--epsilon must be finite and > 0, --delta in (0, 1)", 2);
    }
    ExitOnError(kCommand, RunLifetime(o));
  });
}

void AddDevicesCommands(host::Command& app) {
  auto options = std::make_shared<DevicesOptions>();
  host::Command devices =
      app.AddSubcommand("devices", "Device registry and PSKs");
  devices.RequireSubcommand();
  devices.Fallthrough();
  devices.AddOption("--db", options->db_path, "Aggregator database")
      .CaptureDefault();

  host::Command add = devices.AddSubcommand(
      "add",
      "Enroll devices with new random PSKs (to files, or printed once "
      "with --print-keys)");
  add.AddOption("ids", options->ids,
                "Device ids (= DTLS PSK identities); many are enrolled in "
                "one transaction");
  add.AddOption("--count", options->count,
                "Enroll N <= 1000000 devices <prefix>00000 .. (no ids)");
  add.AddOption("--prefix", options->prefix, "Id prefix for --count")
      .CaptureDefault();
  add.AddOption("--psk-file", options->psk_file,
                "Write the PSK (hex) to this new file, mode 0600, instead "
                "(one id only)");
  add.AddOption("--psk-dir", options->psk_dir,
                "Write each PSK to DIR/<id> (new files, mode 0600), the "
                "layout edgeadmm-fleet connect reads");
  add.AddFlag("--print-keys", options->print_keys,
              "Print the PSKs (hex) to stdout, once");
  add.OnRun([options] {
    auto ids = IdsToAdd(*options);
    if (!ids.ok()) Exit("edgeadmm devices add", ids.error().message(), 2);
    ExitOnError(kCommand, RunAdd(*options, *ids));
  });

  devices.AddSubcommand("list", "List devices").OnRun([options] {
    ExitOnError(kCommand, RunList(*options));
  });

  host::Command rotate = devices.AddSubcommand(
      "rotate-key",
      "Give a device a new random PSK; the old one fails from the next "
      "handshake");
  rotate.AddOption("id", options->id, "Device id").Required();
  rotate.AddOption("--psk-file", options->psk_file,
                   "Write the new PSK (hex) to this new file, mode 0600");
  rotate.AddFlag("--print-keys", options->print_keys,
                 "Print the new PSK (hex) to stdout, once");
  rotate.OnRun([options] {
    const host::Error usage = CheckKeyDestination(*options);
    if (!usage.ok()) {
      Exit("edgeadmm devices rotate-key", usage.message(), 2);
    }
    ExitOnError(kCommand, RunRotateKey(*options));
  });

  AddLifetimeCommand(devices, options);

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
    host::Command sub = devices.AddSubcommand(c.name, c.help);
    sub.AddOption("id", options->id, "Device id").Required();
    sub.OnRun([options, c] {
      ExitOnError(kCommand, RunChange(*options, c.verb, c.change));
    });
  }
}

}  // namespace

EDGEADMM_CLI_COMMAND(AddDevicesCommands);

}  // namespace edgeadmm::cli
