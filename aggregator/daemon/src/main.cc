// edgeadmm-aggregatord: serves the running jobs of the aggregator database
// over CoAP/DTLS-PSK until SIGTERM or SIGINT.
//
//   edgeadmm-aggregatord [--config FILE] [--db PATH] [--port N]
//   edgeadmm-aggregatord --version | --help
//
// The database: --db, else $EDGEADMM_DB, else the config's [store]
// database, else /var/lib/edgeadmm/aggregator.db; one line on stderr at
// start names the file and which of the four named it.
//
// Exit codes: 0 after a clean shutdown, 1 on a startup or store error,
// 2 on bad usage or configuration.
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include "edgeadmm/daemon/daemon_config.h"
#include "edgeadmm/host/version.h"
#include "edgeadmm/log.h"
#include "edgeadmm/server/coap_server.h"
#include "edgeadmm/server/coordinator_lease.h"
#include "edgeadmm/server/serve_until_stopped.h"
#include "edgeadmm/store/database.h"

namespace {

volatile std::sig_atomic_t g_stop = 0;

void OnSignal(int) { g_stop = 1; }

int Usage() {
  std::fprintf(stderr,
               "usage: edgeadmm-aggregatord [--config FILE] [--db PATH] "
               "[--port N]\n       edgeadmm-aggregatord --version | --help\n");
  return 2;
}

// The full --help text: options, their defaults, the config keys.
int Help() {
  std::printf(
      "edgeadmm-aggregatord %s: the EdgeADMM aggregator. Serves the running\n"
      "job of its database to the enrolled devices over CoAP/DTLS-PSK until\n"
      "SIGTERM or SIGINT. Jobs and devices are managed with `edgeadmm`.\n"
      "\n"
      "usage: edgeadmm-aggregatord [--config FILE] [--db PATH] [--port N]\n"
      "\n"
      "options:\n"
      "  --config FILE  daemon config (TOML; unknown keys are refused).\n"
      "                 Default: none, every key at its default.\n"
      "  --db PATH      the aggregator database: an SQLite file or a\n"
      "                 postgresql:// URI. Chosen in this order:\n"
      "                 --db, $EDGEADMM_DB, the config's [store] database,\n"
      "                 /var/lib/edgeadmm/aggregator.db; the choice is\n"
      "                 logged at start.\n"
      "  --port N       UDP port to listen on, 0..65535 (0: any free port).\n"
      "                 Default: the config's [server] port, else 5684.\n"
      "  --version      print the version and exit.\n"
      "  --help         print this text and exit.\n"
      "\n"
      "config keys (defaults; docs/aggregator.md, \"The daemon\"):\n"
      "  [store]  database = \"/var/lib/edgeadmm/aggregator.db\"\n"
      "           or backend = \"postgresql\" with connection = \"<URI or\n"
      "           libpq keywords>\" (docs/aggregator.md, \"PostgreSQL "
      "backend\")\n"
      "  [server] address = \"::\"  port = 5684  session_timeout_seconds = 60\n"
      "           max_sessions = 0 (no limit)  max_handshakes = 256\n"
      "           max_handshakes_per_source = 32  io_batch_reads = 128\n"
      "           handshake_timeout_ms = 5000 (500..120000)\n"
      "           requests_per_second = 20  request_burst = 100\n"
      "           receive_buffer_bytes = 8388608  shards = 64 (1..64)\n"
      "           threads = 1 (1..shards: threads running the shards)\n"
      "           non_confirmable_notifications = false\n"
      "           group_commit = true (one fsync per I/O pass)\n"
      "           write_batch = true (with group_commit: one SQLite\n"
      "           transaction per I/O pass)\n"
      "           held_datagrams = 8192 (16..1000000)\n"
      "           task_heartbeat_seconds = 10 (0: notify on changes only)\n"
      "           upload_spread_us = 500 (per expected cohort member)\n"
      "           release_delay_ms = 500 (trusted-aggregator release hold)\n"
      "  [gateway] id = the host name (names this daemon in the database;\n"
      "            with several daemons on one PostgreSQL database, the one\n"
      "            holding a job's coordinator lease serves it)\n"
      "  [metrics] file = none (Prometheus textfile for the node exporter)\n"
      "            interval_seconds = 10\n"
      "\n"
      "exit status: 0 after a clean shutdown, 1 on a startup or store error,\n"
      "2 on bad usage or configuration. Example config and unit:\n"
      "/usr/share/doc/edgeadmm/examples/aggregatord.toml,\n"
      "edgeadmm-aggregatord.service; docs: "
      "/usr/share/doc/edgeadmm/aggregator.md\n",
      EDGEADMM_VERSION);
  return 0;
}

// The whole of `text` as a port in [0, 65535] (0: any free port), or -1.
long ParsePort(const char* text) {
  const char* end = text + std::strlen(text);
  long port = -1;
  const auto [rest, error] = std::from_chars(text, end, port);
  if (error != std::errc() || rest != end || port < 0 || port > 65535) {
    return -1;
  }
  return port;
}

// The default [gateway] id: the host name, cut to 63 characters, any
// character ValidGatewayId refuses replaced by '-'.
std::string HostGatewayId() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0 || name[0] == '\0') {
    return "gateway";
  }
  std::string id(name, std::min<size_t>(std::strlen(name), 63));
  for (char& c : id) {
    if (!edgeadmm::server::ValidGatewayId(std::string_view(&c, 1))) c = '-';
  }
  return id;
}

// The start line: the gateway, the database (password redacted), who
// named it and its engine.
void PrintStartLine(const std::string& gateway, const std::string& shown,
                    const char* source, bool postgresql) {
  std::fprintf(stderr,
               "edgeadmm-aggregatord: gateway %s, database %s (from %s) on "
               "%s\n",
               gateway.c_str(), shown.c_str(), source,
               postgresql ? "PostgreSQL" : "SQLite");
}

// What the config leaves to the host: the gateway id (the host name) and,
// on SQLite, the SecAgg+ round logs beside the database file, from which a
// restart resumes the open secure rounds.
void FillServerDefaults(edgeadmm::daemon::DaemonConfig& config,
                        bool postgresql) {
  if (config.server.gateway_id.empty()) {
    config.server.gateway_id = HostGatewayId();
  }
  if (!postgresql && config.server.secagg_log_prefix.empty()) {
    config.server.secagg_log_prefix = config.database + ".secagg-job-";
  }
}

// The first server did not start (`status`): one line on stderr, exit 1.
int CannotStart(edgeadmm::Status status, const std::string& shown,
                const edgeadmm::store::Database& db) {
  std::fprintf(stderr,
               "edgeadmm-aggregatord: cannot start (%s); last database error "
               "on %s: %s\n",
               status.str(), shown.c_str(), db.LastError().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  using edgeadmm::daemon::DaemonConfig;
  std::string config_path;
  std::string db_override;
  long port_override = -1;
  for (int i = 1; i < argc; ++i) {
    const bool has_value = i + 1 < argc;
    if (std::strcmp(argv[i], "--help") == 0 ||
        std::strcmp(argv[i], "-h") == 0) {
      return Help();
    }
    if (std::strcmp(argv[i], "--version") == 0) {
      std::printf("edgeadmm-aggregatord %s\n", EDGEADMM_VERSION);
      return 0;
    }
    if (std::strcmp(argv[i], "--config") == 0 && has_value) {
      config_path = argv[++i];
    } else if (std::strcmp(argv[i], "--db") == 0 && has_value) {
      db_override = argv[++i];
    } else if (std::strcmp(argv[i], "--port") == 0 && has_value) {
      port_override = ParsePort(argv[++i]);
      if (port_override < 0) return Usage();
    } else {
      return Usage();
    }
  }

  DaemonConfig config;
  if (!config_path.empty()) {
    std::ifstream in(config_path);
    if (!in) {
      std::fprintf(stderr, "edgeadmm-aggregatord: cannot read %s\n",
                   config_path.c_str());
      return 2;
    }
    std::stringstream text;
    text << in.rdbuf();
    auto parsed = edgeadmm::daemon::ParseDaemonConfig(text.str());
    if (!parsed.ok()) {
      std::fprintf(stderr, "edgeadmm-aggregatord: %s: %s\n",
                   config_path.c_str(), parsed.error().message().c_str());
      return 2;
    }
    config = std::move(parsed).value();
  }
  const edgeadmm::store::DatabaseChoice database =
      edgeadmm::store::ChooseDatabasePath(db_override, config.database);
  config.database = database.path;
  if (port_override >= 0) {
    config.server.port = static_cast<uint16_t>(port_override);
  }

  struct sigaction action {};
  action.sa_handler = &OnSignal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGINT, &action, nullptr);
  std::signal(SIGPIPE, SIG_IGN);

  // One line on stderr for each way the start fails, so that a supervisor
  // restarting the daemon (systemd Restart=on-failure) logs why: a full
  // disk or a read-only database is not a silent crash loop.
  // The config's connection may be a libpq keyword string; elsewhere (--db,
  // $EDGEADMM_DB, [store] database) PostgreSQL is named by a postgresql://
  // URI, which Database::Open recognises.
  const bool keywords =
      std::string_view(database.source) == "config" && config.postgresql;
  // Logs name the database without its password.
  const std::string shown = edgeadmm::store::RedactTarget(config.database);
  auto db = keywords ? edgeadmm::store::Database::OpenPostgres(config.database)
                     : edgeadmm::store::Database::Open(config.database);
  if (!db.ok()) {
    std::fprintf(stderr, "edgeadmm-aggregatord: cannot open database %s: %s\n",
                 shown.c_str(), db.status().str());
    return 1;
  }
  FillServerDefaults(config, db->postgresql());
  PrintStartLine(config.server.gateway_id, shown, database.source,
                 db->postgresql());
  bool created = false;
  const edgeadmm::Status status = edgeadmm::server::ServeUntilStopped(
      *db, config.server, &g_stop, [&](uint16_t port) {
        created = true;
        // Tell a supervisor (tests, scripts) which port we serve.
        std::printf("edgeadmm-aggregatord: listening on port %u\n", port);
        std::fflush(stdout);
      });
  if (!created) return CannotStart(status, shown, *db);
  if (!status.ok()) {
    EDGEADMM_LOG_ERROR("aggregatord: stopped on error %s", status.str());
    return 1;
  }
  EDGEADMM_LOG_INFO("aggregatord: clean shutdown");
  return 0;
}
