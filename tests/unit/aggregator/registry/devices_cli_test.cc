// Round trip through the `edgeadmm devices` admin CLI (the real binary).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "edgeadmm/registry/device_registry.h"
#include "edgeadmm/registry/hex.h"
#include "run_command.h"
#include "test_database.h"

namespace edgeadmm::registry {
namespace {

using testing::CommandResult;

CommandResult RunCli(const std::string& db, const std::string& args) {
  return testing::RunCommand(std::string(EDGEADMM_CLI_PATH) + " devices " +
                             args + " --db " + db);
}

TEST(DevicesCliTest, AddListDisableRemoveRoundTrip) {
  testing::TempDatabase t;
  const std::string db = t.path();

  const CommandResult add = RunCli(db, "add node-1");
  ASSERT_EQ(add.exit_code, 0) << add.output;
  const size_t at = add.output.find("\npsk ");
  ASSERT_NE(at, std::string::npos) << add.output;
  const std::string printed = add.output.substr(at + 5, 2 * kPskBytes);
  DeviceRegistry reg(t.db());
  auto psk = reg.LookupPsk("node-1");
  ASSERT_TRUE(psk.ok());
  EXPECT_EQ(printed, ToHex(*psk));

  const std::string psk_file = t.dir() + "/node-2.psk";
  const CommandResult add_file =
      RunCli(db, "add node-2 --psk-file " + psk_file);
  ASSERT_EQ(add_file.exit_code, 0) << add_file.output;
  EXPECT_EQ(add_file.output.find("\npsk "), std::string::npos)
      << "the PSK must not be printed when written to a file";
  struct stat st {};
  ASSERT_EQ(stat(psk_file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  std::ifstream in(psk_file);
  std::string file_hex;
  in >> file_hex;
  auto psk2 = reg.LookupPsk("node-2");
  ASSERT_TRUE(psk2.ok());
  EXPECT_EQ(file_hex, ToHex(*psk2));

  EXPECT_NE(RunCli(db, "add node-1").exit_code, 0);
  EXPECT_NE(RunCli(db, "add 'bad id'").exit_code, 0);

  ASSERT_EQ(RunCli(db, "disable node-1").exit_code, 0);
  const CommandResult list = RunCli(db, "list");
  ASSERT_EQ(list.exit_code, 0);
  EXPECT_NE(list.output.find("node-1\tdisabled"), std::string::npos)
      << list.output;
  EXPECT_NE(list.output.find("node-2\tenabled"), std::string::npos)
      << list.output;
  EXPECT_EQ(reg.LookupPsk("node-1").status(), Status::PermissionDenied());

  ASSERT_EQ(RunCli(db, "enable node-1").exit_code, 0);
  EXPECT_TRUE(reg.LookupPsk("node-1").ok());
  ASSERT_EQ(RunCli(db, "remove node-1").exit_code, 0);
  EXPECT_NE(RunCli(db, "remove node-1").exit_code, 0);
  EXPECT_EQ(RunCli(db, "list").output.find("node-1"), std::string::npos);
}

}  // namespace
}  // namespace edgeadmm::registry
