// DaemonConfig: the aggregator daemon's TOML configuration.
//
//   [store]
//   database = "/var/lib/edgeadmm/aggregator.db"
//   backend = "sqlite"            # or "postgresql", with:
//   connection =
//   "postgresql://edgeadmm@db.example/edgeadmm?sslmode=verify-full"
//                                 # (a URI or a libpq keyword string; in
//                                 # place of database)
//   [gateway]
//   id = "gw-a"                   # names this daemon in the database (the
//                                 # coordinator lease); default: host name
//   [server]
//   address = "::"                # listen address
//   port = 5684                   # coaps
//   session_timeout_seconds = 60  # idle DTLS sessions are dropped
//   max_sessions = 0              # 0: libcoap default
//
// Every key is optional; missing keys keep the defaults above, except
// [store] database: absent, it stays empty and the daemon chooses the file
// (store::ChooseDatabasePath: --db, $EDGEADMM_DB, this key, the default
// above). An unknown table or key is refused (INVALID_ARGUMENT naming it
// and the nearest known name).
#pragma once

#include <string>
#include <string_view>

#include "edgeadmm/host/error.h"
#include "edgeadmm/server/coap_server.h"

namespace edgeadmm::daemon {

// The daemon's [server] shards unless the config says otherwise (a
// CoapServer made in process has one): the start of 6,000 devices took
// 42 s with one and 10 s with eight, and 32,561 devices' start cost the
// daemon 62.6 s of CPU with 8 and 38.4 s with 64 (docs/results.md).
inline constexpr unsigned kDaemonShards = 64;

struct DaemonConfig {
  std::string database;     // empty: the config names none; else the file, or
                            // [store] connection when postgresql
  bool postgresql = false;  // [store] backend = "postgresql"
  server::ServerOptions server = DaemonServerDefaults();

  static server::ServerOptions DaemonServerDefaults() {
    server::ServerOptions options;
    options.shards = kDaemonShards;
    return options;
  }
};

// Parses the daemon config. INVALID_ARGUMENT naming the key (or the TOML
// syntax error's line) on failure.
host::ErrorOr<DaemonConfig> ParseDaemonConfig(std::string_view toml_text);

}  // namespace edgeadmm::daemon
