// The daemon's command line (issue 32 item 6): a port that is not a number
// in [0, 65535] is a usage error (exit 2), never read as 0 (a random port).
// The database it opens (issue 35 item 1): --db, then $EDGEADMM_DB, then the
// config's [store] database, named on its log at start.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "run_command.h"
#include "test_database.h"

namespace edgeadmm {
namespace {

TEST(DaemonUsageTest, BadPortIsAUsageError) {
  testing::TempDatabase t;
  for (const char* port : {"abc", "12abc", "", "-1", "65536", "99999999999",
                           " 80", "0x50"}) {
    // `timeout`: the daemon that took "abc" for 0 served until killed.
    const testing::CommandResult run = testing::RunCommand(
        std::string("timeout 5 ") + EDGEADMM_DAEMON_PATH + " --db " +
        t.path() + " --port '" + port + "'");
    EXPECT_EQ(run.exit_code, 2) << "--port '" << port << "': " << run.output;
    EXPECT_NE(run.output.find("usage: edgeadmm-aggregatord"),
              std::string::npos)
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

}  // namespace
}  // namespace edgeadmm
