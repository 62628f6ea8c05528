#include "edgeadmm/daemon/daemon_config.h"

#include <gtest/gtest.h>

namespace edgeadmm::daemon {
namespace {

TEST(DaemonConfigTest, DefaultsAndOverrides) {
  auto empty = ParseDaemonConfig("");
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->database, "");  // the daemon chooses (ChooseDatabasePath)
  EXPECT_EQ(empty->server.port, 5684);
  EXPECT_FALSE(empty->server.non_confirmable_notifications);
  auto c = ParseDaemonConfig(
      "[store]\ndatabase = \"/tmp/a.db\"\n[server]\naddress = \"127.0.0.1\"\n"
      "port = 6000\nsession_timeout_seconds = 5\nmax_sessions = 100\n"
      "non_confirmable_notifications = true\nmax_handshakes = 300\n"
      "max_handshakes_per_source = 4\nrequests_per_second = 7\n"
      "request_burst = 30\nrelease_delay_ms = 0\nshards = 3\nthreads = 2\n"
      "max_secure_rounds = 3\ntask_heartbeat_seconds = 0\n"
      "held_datagrams = 64\nupload_spread_us = 0\n"
      "handshake_timeout_ms = 20000\n[metrics]\nfile = "
      "\"/tmp/e.prom\"\n"
      "interval_seconds = 3\n");
  ASSERT_TRUE(c.ok()) << c.error().ToString();
  EXPECT_EQ(c->database, "/tmp/a.db");
  EXPECT_EQ(c->server.address, "127.0.0.1");
  EXPECT_EQ(c->server.port, 6000);
  EXPECT_EQ(c->server.session_timeout_seconds, 5u);
  EXPECT_EQ(c->server.max_sessions, 100u);
  EXPECT_TRUE(c->server.non_confirmable_notifications);
  EXPECT_EQ(c->server.max_handshakes, 300u);
  EXPECT_EQ(c->server.admission.max_pending_per_source, 4);
  EXPECT_EQ(empty->server.max_handshakes, 256u);
  EXPECT_EQ(c->server.handshake_timeout_ms, 20000u);
  EXPECT_EQ(empty->server.handshake_timeout_ms, 5000u);
  EXPECT_EQ(empty->server.admission.max_pending_per_source, 32);
  EXPECT_EQ(c->server.request_budget.requests_per_second, 7.0);
  EXPECT_EQ(c->server.request_budget.burst, 30.0);
  EXPECT_EQ(empty->server.request_budget.requests_per_second, 20.0);
  EXPECT_EQ(empty->server.request_budget.burst, 100.0);
  EXPECT_EQ(c->server.release_delay_ms, 0u);
  EXPECT_EQ(empty->server.release_delay_ms, 500u);
  EXPECT_EQ(c->server.shards, 3u);
  EXPECT_EQ(c->server.threads, 2u);
  EXPECT_EQ(empty->server.threads, 1u);
  EXPECT_EQ(c->server.held_datagrams, 64u);
  EXPECT_EQ(empty->server.held_datagrams, 8192u);
  EXPECT_EQ(c->server.task_heartbeat_ms, 0u);
  EXPECT_EQ(empty->server.task_heartbeat_ms, 10000u);
  EXPECT_EQ(c->server.upload_spread_us, 0u);
  EXPECT_EQ(empty->server.upload_spread_us, 500u);
  EXPECT_EQ(empty->server.shards, kDaemonShards);
  EXPECT_EQ(kDaemonShards, 64u);
  EXPECT_EQ(c->server.max_secure_rounds, 3u);
  EXPECT_EQ(empty->server.max_secure_rounds, 4u);
  EXPECT_EQ(c->server.metrics_file, "/tmp/e.prom");
  EXPECT_EQ(c->server.metrics_interval_ms, 3000u);
  EXPECT_EQ(empty->server.metrics_file, "");  // none written
  EXPECT_EQ(empty->server.metrics_interval_ms, 10000u);
}

TEST(DaemonConfigTest, PostgresqlBackendTakesTheConnection) {
  auto c = ParseDaemonConfig(
      "[store]\nbackend = \"postgresql\"\nconnection = \"host=/run/pg "
      "dbname=edgeadmm\"\n");
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_TRUE(c->postgresql);
  EXPECT_EQ(c->database, "host=/run/pg dbname=edgeadmm");
  auto sqlite = ParseDaemonConfig("[store]\nbackend = \"sqlite\"\n");
  ASSERT_TRUE(sqlite.ok());
  EXPECT_FALSE(sqlite->postgresql);
  EXPECT_EQ(sqlite->database, "");
}

TEST(DaemonConfigTest, GatewayIdNamesTheDaemon) {
  auto c = ParseDaemonConfig("[gateway]\nid = \"site-3.gw_a\"\n");
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(c->server.gateway_id, "site-3.gw_a");
  // Absent: empty, and the daemon names itself after the host.
  EXPECT_EQ(ParseDaemonConfig("")->server.gateway_id, "");
}

TEST(DaemonConfigTest, BadValuesAreNamed) {
  const std::pair<const char*, const char*> kBad[] = {
      {"[server]\nport = 70000\n", "server.port: must be an integer"},
      {"[server]\nport = \"x\"\n", "server.port: must be an integer"},
      {"[server]\nsession_timeout_seconds = 0\n",
       "server.session_timeout_seconds"},
      {"[store]\ndatabase = \"\"\n", "store.database: must be a non-empty"},
      {"[server]\nnon_confirmable_notifications = 1\n",
       "server.non_confirmable_notifications: must be true or false"},
      {"[server]\nmax_handshakes_per_source = 0\n",
       "server.max_handshakes_per_source"},
      {"[server]\nmax_handshakes = -1\n", "server.max_handshakes"},
      {"[server]\nhandshake_timeout_ms = 499\n",
       "server.handshake_timeout_ms: must be an integer in [500, 120000]"},
      {"[server]\nhandshake_timeout_ms = 120001\n",
       "server.handshake_timeout_ms"},
      {"[server]\nrequest_burst = 0\n", "server.request_burst"},
      {"[server]\nrequests_per_second = -1\n", "server.requests_per_second"},
      {"[server\n", "TOML syntax error at line 1"},
      {"[metrics]\ninterval_seconds = 0\n", "metrics.interval_seconds"},
      {"[server]\nrelease_delay_ms = 60001\n", "server.release_delay_ms"},
      {"[server]\nshards = 0\n", "server.shards"},
      {"[server]\ntask_heartbeat_seconds = 3601\n",
       "server.task_heartbeat_seconds"},
      {"[server]\ntask_heartbeat_seconds = -1\n",
       "server.task_heartbeat_seconds"},
      {"[server]\nshards = 65\n", "server.shards"},
      {"[server]\nthreads = 0\n", "server.threads"},
      {"[server]\nshards = 4\nthreads = 5\n",
       "server.threads: 5 threads for 4"},
      {"[server]\nupload_spread_us = -1\n", "server.upload_spread_us"},
      {"[server]\nupload_spread_us = 1000001\n", "server.upload_spread_us"},
      {"[server]\nheld_datagrams = 15\n", "server.held_datagrams"},
      {"[server]\nmax_secure_rounds = 0\n", "server.max_secure_rounds"},
      {"[server]\nmax_secure_rounds = 17\n", "server.max_secure_rounds"},
      {"[metrics]\nfile = \"\"\n", "metrics.file: must be a non-empty"},
      // Issue 32 item 6: a misspelled key no longer runs with the default.
      // Issue 35 item 3: with the nearest known name when there is one.
      {"[server]\nmax_handshake_per_source = 4\n",
       "unknown key server.max_handshake_per_source; did you mean "
       "server.max_handshakes_per_source?"},
      {"[store]\npath = \"/tmp/a.db\"\n", "unknown key store.path"},
      {"[store]\nbackend = \"mysql\"\n",
       "store.backend: must be \"sqlite\" or \"postgresql\", not \"mysql\""},
      {"[store]\nbackend = \"postgresql\"\n",
       "store.connection: backend = \"postgresql\" needs a connection"},
      {"[store]\nbackend = \"postgresql\"\ndatabase = \"/a.db\"\n"
       "connection = \"dbname=x\"\n",
       "store.connection: backend = \"postgresql\" needs a connection"},
      {"[store]\nconnection = \"dbname=x\"\n",
       "store.connection: only with backend = \"postgresql\""},
      {"[servers]\nport = 6000\n",
       "unknown table [servers]; did you mean [server]?"},
      {"[network]\nport = 6000\n", "unknown table [network]"},
      {"[gateway]\nid = \"gw a\"\n", "gateway.id: 1 to 63 of"},
      {"[gateway]\nid = \"\"\n", "gateway.id: must be a non-empty string"},
      {"port = 6000\n",
       "unknown key port outside the tables; did you mean server.port?"},
  };
  for (const auto& [text, expected] : kBad) {
    const auto parsed = ParseDaemonConfig(text);
    EXPECT_EQ(parsed.status(), Status::InvalidArgument()) << text;
    const std::string error = parsed.error().message();
    EXPECT_EQ(error.rfind(expected, 0), 0u) << error;
  }
}

}  // namespace
}  // namespace edgeadmm::daemon
