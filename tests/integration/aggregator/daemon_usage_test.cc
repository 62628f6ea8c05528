// The daemon's command line (issue 32 item 6): a port that is not a number
// in [0, 65535] is a usage error (exit 2), never read as 0 (a random port).
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace edgeadmm
