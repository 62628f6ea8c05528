// The daemon's command line (issue 32 item 6): a port that is not a number
// in [0, 65535] is a usage error (exit 2), never read as 0 (a random port).
// The database it opens (issue 35 item 1): --db, then $EDGEADMM_DB, then the
// config's [store] database, named on its log at start. Its port is its
// own: a second daemon on it refuses to start.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <string>

#include "daemon_process.h"
#include "run_command.h"
#include "test_database.h"

namespace edgeadmm {
namespace {

TEST(DaemonUsageTest, BadPortIsAUsageError) {
  testing::TempDatabase t;
  for (const char* port :
       {"abc", "12abc", "", "-1", "65536", "99999999999", " 80", "0x50"}) {
    // `timeout`: the daemon that took "abc" for 0 served until killed.
    const testing::CommandResult run =
        testing::RunCommand(std::string("timeout 5 ") + EDGEADMM_DAEMON_PATH +
                            " --db " + t.path() + " --port '" + port + "'");
    EXPECT_EQ(run.exit_code, 2) << "--port '" << port << "': " << run.output;
    EXPECT_NE(run.output.find("usage: edgeadmm-aggregatord"), std::string::npos)
        << run.output;
  }
}

// Runs the daemon for two seconds (then SIGTERM) on a config that names
// `config_db` (none if empty), with EDGEADMM_DB=`env_db` and `flag`.
testing::CommandResult RunBriefly(const testing::TempDatabase& t,
                                  const std::string& config_db,
                                  const std::string& env_db,
                                  const std::string& flag) {
  std::string text;
  if (!config_db.empty()) text = "[store]\ndatabase = \"" + config_db + "\"\n";
  text += "[server]\naddress = \"127.0.0.1\"\nport = 0\n";
  const std::string config = t.dir() + "/aggregatord.toml";
  std::ofstream(config) << text;
  return testing::RunCommand(
      "EDGEADMM_DB='" + env_db + "' timeout --preserve-status -s TERM 2 " +
      EDGEADMM_DAEMON_PATH + " --config " + config + flag);
}

bool Exists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

TEST(DaemonUsageTest, EnvironmentNamesTheDatabaseWhenTheConfigDoesNot) {
  testing::TempDatabase t;
  const std::string env_db = t.dir() + "/from-env.db";
  const testing::CommandResult run = RunBriefly(t, "", env_db, "");
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_TRUE(Exists(env_db)) << run.output;
  EXPECT_NE(run.output.find("database " + env_db + " (from EDGEADMM_DB)"),
            std::string::npos)
      << run.output;
}

TEST(DaemonUsageTest, FlagThenEnvironmentThenConfig) {
  testing::TempDatabase t;
  const std::string flag_db = t.dir() + "/flag.db";
  const std::string env_db = t.dir() + "/env.db";
  const std::string config_db = t.dir() + "/config.db";
  testing::CommandResult run =
      RunBriefly(t, config_db, env_db, " --db " + flag_db);
  EXPECT_NE(run.output.find("database " + flag_db + " (from --db)"),
            std::string::npos)
      << run.output;
  run = RunBriefly(t, config_db, env_db, "");
  EXPECT_NE(run.output.find("database " + env_db + " (from EDGEADMM_DB)"),
            std::string::npos)
      << run.output;
  run = RunBriefly(t, config_db, "", "");
  EXPECT_NE(run.output.find("database " + config_db + " (from config)"),
            std::string::npos)
      << run.output;
  EXPECT_TRUE(Exists(flag_db) && Exists(env_db) && Exists(config_db));
}

// server.shards takes up to 64: each shard's endpoint gets its own
// handshake filter (the filter once held 16 sockets, and a daemon with 17
// or more shards refused to start).
TEST(DaemonUsageTest, TheMostShardsTheConfigAllowsStartAndStop) {
  testing::TempDatabase db;
  testing::DaemonProcess daemon(
      EDGEADMM_DAEMON_PATH,
      testing::DaemonArgs(db.dir(), db.path(), "shards = 64\n"));
  ASSERT_TRUE(daemon.started());
  EXPECT_EQ(daemon.Terminate(), 0);
}

// Two UDP sockets that both set SO_REUSEADDR may share a port on Linux, and
// the shards set SO_REUSEPORT: without the daemon's probe and its clearing
// of SO_REUSEADDR, a second daemon (or any program) would bind the port and
// take part of the first one's datagrams.
TEST(DaemonUsageTest, ASecondDaemonOnTheSamePortRefusesToStart) {
  testing::TempDatabase first_db;
  testing::DaemonProcess first(
      EDGEADMM_DAEMON_PATH,
      testing::DaemonArgs(first_db.dir(), first_db.path(), "shards = 4\n"));
  ASSERT_TRUE(first.started());
  for (const char* shards : {"shards = 4\n", "shards = 1\n"}) {
    testing::TempDatabase second_db;
    const std::string config = second_db.dir() + "/second.toml";
    std::ofstream(config) << "[server]\naddress = \"127.0.0.1\"\nport = "
                          << first.port() << "\n"
                          << shards;
    const testing::CommandResult second = testing::RunCommand(
        std::string("timeout --preserve-status -s TERM 5 ") +
        EDGEADMM_DAEMON_PATH + " --config " + config + " --db " +
        second_db.path());
    EXPECT_NE(second.exit_code, 0) << shards << second.output;
    EXPECT_NE(second.output.find("in use by another socket"), std::string::npos)
        << shards << second.output;
  }
  // Nor can a socket that sets SO_REUSEADDR only (libcoap's option).
  const int fd = socket(AF_INET, SOCK_DGRAM, 0);
  ASSERT_GE(fd, 0);
  const int on = 1;
  ASSERT_EQ(setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on)), 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(first.port()));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const int bound =
      bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address));
  const int error = errno;
  close(fd);
  EXPECT_NE(bound, 0);
  EXPECT_EQ(error, EADDRINUSE);
  EXPECT_EQ(first.Terminate(), 0);
}

}  // namespace
}  // namespace edgeadmm
