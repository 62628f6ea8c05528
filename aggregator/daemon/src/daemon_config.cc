#include "edgeadmm/daemon/daemon_config.h"

#include <string>
#include <vector>

#include "edgeadmm/job_types/toml_document.h"
#include "edgeadmm/server/coordinator_lease.h"

namespace edgeadmm::daemon {
namespace {

// Reads an optional integer key within [low, high].
host::Error ReadInt(const toml::table& root, std::string_view key, int64_t low,
                    int64_t high, int64_t& out) {
  const auto node = root.at_path(key);
  if (!node) return host::Error::Ok();
  const std::optional<int64_t> v = node.value_exact<int64_t>();
  if (!v || *v < low || *v > high) {
    return host::Error::InvalidArgument(
        std::string(key) + ": must be an integer in [" + std::to_string(low) +
        ", " + std::to_string(high) + "]");
  }
  out = *v;
  return host::Error::Ok();
}

host::Error ReadBool(const toml::table& root, std::string_view key, bool& out) {
  const auto node = root.at_path(key);
  if (!node) return host::Error::Ok();
  const std::optional<bool> v = node.value_exact<bool>();
  if (!v) {
    return host::Error::InvalidArgument(std::string(key) +
                                        ": must be true or false");
  }
  out = *v;
  return host::Error::Ok();
}

host::Error ReadString(const toml::table& root, std::string_view key,
                       std::string& out) {
  const auto node = root.at_path(key);
  if (!node) return host::Error::Ok();
  const std::optional<std::string> v = node.value_exact<std::string>();
  if (!v || v->empty()) {
    return host::Error::InvalidArgument(std::string(key) +
                                        ": must be a non-empty string");
  }
  out = *v;
  return host::Error::Ok();
}

// server.group_commit, server.write_batch and the bound of the datagrams a
// pass holds for its fsync.
host::Error ReadGroupCommit(const toml::table& root, DaemonConfig& c) {
  EDGEADMM_HOST_TRY(
      ReadBool(root, "server.group_commit", c.server.group_commit));
  EDGEADMM_HOST_TRY(ReadBool(root, "server.write_batch", c.server.write_batch));
  auto held = static_cast<int64_t>(c.server.held_datagrams);
  EDGEADMM_HOST_TRY(
      ReadInt(root, "server.held_datagrams", 16, 1'000'000, held));
  c.server.held_datagrams = static_cast<size_t>(held);
  return host::Error::Ok();
}

// [store]: the SQLite file (database) or, with backend = "postgresql", the
// connection; a key of the other backend is refused.
host::Error ReadStore(const toml::table& root, DaemonConfig& c) {
  std::string backend = "sqlite";
  std::string connection;
  EDGEADMM_HOST_TRY(ReadString(root, "store.backend", backend));
  EDGEADMM_HOST_TRY(ReadString(root, "store.database", c.database));
  EDGEADMM_HOST_TRY(ReadString(root, "store.connection", connection));
  if (backend == "sqlite") {
    if (connection.empty()) return host::Error::Ok();
    return host::Error::InvalidArgument(
        "store.connection: only with backend = \"postgresql\" (the SQLite "
        "file is store.database)");
  }
  if (backend != "postgresql") {
    return host::Error::InvalidArgument(
        "store.backend: must be \"sqlite\" or \"postgresql\", not \"" +
        backend + "\"");
  }
  if (!c.database.empty() || connection.empty()) {
    return host::Error::InvalidArgument(
        "store.connection: backend = \"postgresql\" needs a connection (a "
        "postgresql:// URI or a libpq keyword string) and no store.database");
  }
  c.database = connection;
  c.postgresql = true;
  return host::Error::Ok();
}

// Every key of the config (an unknown one is refused: a misspelled key
// would otherwise run with the default).
const std::vector<std::string> kKnown = {
    "store.database",
    "store.backend",
    "store.connection",
    "server.address",
    "server.port",
    "server.session_timeout_seconds",
    "server.max_sessions",
    "server.io_batch_reads",
    "server.shards",
    "server.threads",
    "server.max_secure_rounds",
    "server.receive_buffer_bytes",
    "server.max_handshakes_per_source",
    "server.max_handshakes",
    "server.handshake_timeout_ms",
    "server.requests_per_second",
    "server.request_burst",
    "server.non_confirmable_notifications",
    "server.group_commit",
    "server.write_batch",
    "server.held_datagrams",
    "server.task_heartbeat_seconds",
    "server.upload_spread_us",
    "server.release_delay_ms",
    "metrics.file",
    "metrics.interval_seconds",
    "gateway.id",
};

}  // namespace

host::ErrorOr<DaemonConfig> ParseDaemonConfig(std::string_view toml_text) {
  EDGEADMM_HOST_TRY_ASSIGN(const toml::table root,
                           jobs::ParseTomlDocument(toml_text));
  EDGEADMM_HOST_TRY(jobs::RefuseUnknownKeys(root, kKnown));
  DaemonConfig c;
  int64_t port = c.server.port;
  int64_t timeout = c.server.session_timeout_seconds;
  int64_t sessions = c.server.max_sessions;
  int64_t batch = c.server.io_batch_reads;
  int64_t rcvbuf = c.server.receive_buffer_bytes;
  int64_t pending = c.server.admission.max_pending_per_source;
  int64_t handshakes = c.server.max_handshakes;
  int64_t handshake_ms = c.server.handshake_timeout_ms;
  auto rate = static_cast<int64_t>(c.server.request_budget.requests_per_second);
  auto burst = static_cast<int64_t>(c.server.request_budget.burst);
  EDGEADMM_HOST_TRY(ReadStore(root, c));
  EDGEADMM_HOST_TRY(ReadString(root, "server.address", c.server.address));
  EDGEADMM_HOST_TRY(ReadInt(root, "server.port", 0, 65535, port));
  EDGEADMM_HOST_TRY(
      ReadInt(root, "server.session_timeout_seconds", 1, 86400, timeout));
  EDGEADMM_HOST_TRY(
      ReadInt(root, "server.max_sessions", 0, 1'000'000, sessions));
  EDGEADMM_HOST_TRY(ReadInt(root, "server.io_batch_reads", 0, 4096, batch));
  int64_t shards = c.server.shards;
  EDGEADMM_HOST_TRY(ReadInt(root, "server.shards", 1, 64, shards));
  c.server.shards = static_cast<unsigned>(shards);
  int64_t threads = c.server.threads;
  EDGEADMM_HOST_TRY(ReadInt(root, "server.threads", 1, 64, threads));
  if (threads > shards) {
    return host::Error::InvalidArgument(
        "server.threads: " + std::to_string(threads) + " threads for " +
        std::to_string(shards) + " shards (each thread runs whole shards)");
  }
  c.server.threads = static_cast<unsigned>(threads);
  int64_t secure = static_cast<int64_t>(c.server.max_secure_rounds);
  EDGEADMM_HOST_TRY(ReadInt(root, "server.max_secure_rounds", 1, 16, secure));
  c.server.max_secure_rounds = static_cast<size_t>(secure);
  EDGEADMM_HOST_TRY(
      ReadInt(root, "server.receive_buffer_bytes", 0, 1 << 30, rcvbuf));
  EDGEADMM_HOST_TRY(
      ReadInt(root, "server.max_handshakes_per_source", 1, 1'000'000, pending));
  EDGEADMM_HOST_TRY(
      ReadInt(root, "server.max_handshakes", 1, 1'000'000, handshakes));
  EDGEADMM_HOST_TRY(
      ReadInt(root, "server.handshake_timeout_ms", 500, 120'000, handshake_ms));
  EDGEADMM_HOST_TRY(
      ReadInt(root, "server.requests_per_second", 0, 1'000'000, rate));
  EDGEADMM_HOST_TRY(ReadInt(root, "server.request_burst", 1, 1'000'000, burst));
  EDGEADMM_HOST_TRY(ReadBool(root, "server.non_confirmable_notifications",
                             c.server.non_confirmable_notifications));
  EDGEADMM_HOST_TRY(ReadGroupCommit(root, c));
  int64_t heartbeat = c.server.task_heartbeat_ms / 1000;
  EDGEADMM_HOST_TRY(
      ReadInt(root, "server.task_heartbeat_seconds", 0, 3600, heartbeat));
  c.server.task_heartbeat_ms = static_cast<uint32_t>(heartbeat) * 1000;
  int64_t spread = c.server.upload_spread_us;
  EDGEADMM_HOST_TRY(
      ReadInt(root, "server.upload_spread_us", 0, 1'000'000, spread));
  c.server.upload_spread_us = static_cast<uint32_t>(spread);
  int64_t release_delay = c.server.release_delay_ms;
  EDGEADMM_HOST_TRY(
      ReadInt(root, "server.release_delay_ms", 0, 60'000, release_delay));
  c.server.release_delay_ms = static_cast<unsigned>(release_delay);
  EDGEADMM_HOST_TRY(ReadString(root, "metrics.file", c.server.metrics_file));
  int64_t metrics_interval = c.server.metrics_interval_ms / 1000;
  EDGEADMM_HOST_TRY(
      ReadInt(root, "metrics.interval_seconds", 1, 3600, metrics_interval));
  c.server.metrics_interval_ms = static_cast<unsigned>(metrics_interval) * 1000;
  c.server.port = static_cast<uint16_t>(port);
  c.server.receive_buffer_bytes = static_cast<unsigned>(rcvbuf);
  c.server.io_batch_reads = static_cast<unsigned>(batch);
  c.server.session_timeout_seconds = static_cast<unsigned>(timeout);
  c.server.max_sessions = static_cast<unsigned>(sessions);
  c.server.admission.max_pending_per_source = static_cast<int>(pending);
  c.server.max_handshakes = static_cast<unsigned>(handshakes);
  c.server.handshake_timeout_ms = static_cast<unsigned>(handshake_ms);
  c.server.request_budget.requests_per_second = static_cast<double>(rate);
  c.server.request_budget.burst = static_cast<double>(burst);
  EDGEADMM_HOST_TRY(ReadString(root, "gateway.id", c.server.gateway_id));
  if (root.at_path("gateway.id") &&
      !server::ValidGatewayId(c.server.gateway_id)) {
    return host::Error::InvalidArgument(
        "gateway.id: 1 to 63 of A-Z a-z 0-9 . _ - (it names the gateway in "
        "the database), not \"" +
        c.server.gateway_id + "\"");
  }
  return c;
}

}  // namespace edgeadmm::daemon
