// Keys at rest (issue 14, item 5): the database and its -wal/-shm are
// owner-only whoever creates them, the PSKs leave the CLI only where asked,
// `devices rotate-key` replaces a PSK, and `edgeadmm-device` refuses a key
// file others can read.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "devices_cli.h"
#include "edgeadmm/host/hex.h"
#include "edgeadmm/registry/device_registry.h"
#include "edgeadmm/store/owner_only_files.h"
#include "run_command.h"
#include "test_database.h"

namespace edgeadmm::registry {
namespace {

using host::ToHex;

using testing::CommandResult;

// The permission bits of `path`, or -1 if it does not exist.
int Mode(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return -1;
  return static_cast<int>(st.st_mode & 07777);
}

std::string ReadFirstWord(const std::string& path) {
  std::ifstream in(path);
  std::string word;
  in >> word;
  return word;
}

// Restores the umask it replaced.
class ScopedUmask {
 public:
  explicit ScopedUmask(mode_t mask) : old_(umask(mask)) {}
  ~ScopedUmask() { umask(old_); }

 private:
  mode_t old_;
};

TEST(KeysAtRestTest, DatabaseDirectoryAndFilesAreOwnerOnlyUnderUmask022) {
  ScopedUmask loose(022);
  testing::TempDatabase t;
  const std::string dir = t.dir() + "/state";
  const std::string path = dir + "/aggregator.db";
  auto db = store::Database::Open(path);
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE(DeviceRegistry(*db).Add("node-1").ok());
  EXPECT_EQ(Mode(dir), 0700);
  for (const char* suffix : {"", "-wal", "-shm"}) {
    EXPECT_EQ(Mode(path + suffix), 0600) << suffix;
  }
}

TEST(KeysAtRestTest, CliTightensAnExistingWorldReadableDatabase) {
  ScopedUmask loose(022);
  testing::TempDatabase t;
  const std::string path = t.dir() + "/old.db";
  std::ofstream(path).close();  // an old 0644 file
  ASSERT_EQ(Mode(path), 0644);
  const CommandResult add =
      RunCli(path, "add node-1 --psk-file " + t.dir() + "/node-1.psk");
  ASSERT_EQ(add.exit_code, 0) << add.output;
  EXPECT_EQ(Mode(path), 0600);
}

// Issue 32 item 6: a database file (or -wal/-shm) another user owns stays
// theirs to read after a chmod, so it is refused. The predicate on a stat
// of any owner; as root, also the CLI on files given to nobody.
TEST(KeysAtRestTest, OnlyFilesOwnedByTheEffectiveUserAreAccepted) {
  struct stat st {};
  st.st_mode = S_IFREG | 0600;
  st.st_uid = geteuid();
  EXPECT_TRUE(store::OwnedBy(st, geteuid()));
  st.st_uid = geteuid() + 1;
  EXPECT_FALSE(store::OwnedBy(st, geteuid()));
  st.st_uid = geteuid();
  st.st_mode = S_IFIFO | 0600;  // not a regular file
  EXPECT_FALSE(store::OwnedBy(st, geteuid()));
  if (geteuid() != 0) GTEST_SKIP() << "chown needs root: predicate only";
  constexpr uid_t kNobody = 65534;
  for (const char* suffix : {"", "-wal", "-shm"}) {
    testing::TempDatabase t;
    const std::string path = t.dir() + "/planted.db";
    if (*suffix) {
      ASSERT_TRUE(store::Database::Open(path).ok());
    }
    std::ofstream(path + suffix).close();
    ASSERT_EQ(chown((path + suffix).c_str(), kNobody, kNobody), 0);
    const CommandResult add =
        RunCli(path, "add node-1 --psk-file " + t.dir() + "/node-1.psk");
    EXPECT_EQ(add.exit_code, 1) << suffix << ": " << add.output;
    EXPECT_NE(add.output.find("owned by uid 65534"), std::string::npos)
        << add.output;
    EXPECT_EQ(Mode(t.dir() + "/node-1.psk"), -1) << suffix;
  }
}

TEST(KeysAtRestTest, AddPrintsPsksOnlyWhenAsked) {
  testing::TempDatabase t;
  const CommandResult quiet = RunCli(t.path(), "add node-1");
  EXPECT_EQ(quiet.exit_code, 2) << quiet.output;
  EXPECT_NE(quiet.output.find("--print-keys"), std::string::npos)
      << quiet.output;
  EXPECT_FALSE(DeviceRegistry(t.db()).Get("node-1").ok());
  const CommandResult shown = RunCli(t.path(), "add node-1 --print-keys");
  ASSERT_EQ(shown.exit_code, 0) << shown.output;
  auto psk = DeviceRegistry(t.db()).LookupPsk("node-1");
  ASSERT_TRUE(psk.ok());
  EXPECT_NE(shown.output.find("psk " + ToHex(*psk)), std::string::npos);
}

TEST(KeysAtRestTest, RotateKeyReplacesThePsk) {
  testing::TempDatabase t;
  const std::string old_file = t.dir() + "/old.psk";
  ASSERT_EQ(RunCli(t.path(), "add node-1 --psk-file " + old_file).exit_code, 0);
  const std::string new_file = t.dir() + "/new.psk";
  const CommandResult rotate =
      RunCli(t.path(), "rotate-key node-1 --psk-file " + new_file);
  ASSERT_EQ(rotate.exit_code, 0) << rotate.output;
  EXPECT_EQ(Mode(new_file), 0600);
  auto psk = DeviceRegistry(t.db()).LookupPsk("node-1");
  ASSERT_TRUE(psk.ok());
  EXPECT_EQ(ReadFirstWord(new_file), ToHex(*psk));
  EXPECT_NE(ReadFirstWord(old_file), ToHex(*psk));
  EXPECT_EQ(rotate.output.find(ToHex(*psk)), std::string::npos);
  // Unknown device, or nowhere to put the key: nothing changes.
  EXPECT_NE(RunCli(t.path(), "rotate-key ghost --print-keys").exit_code, 0);
  EXPECT_EQ(RunCli(t.path(), "rotate-key node-1").exit_code, 2);
  EXPECT_EQ(DeviceRegistry(t.db()).LookupPsk("node-1").value(), *psk);
}

TEST(KeysAtRestTest, DeviceRefusesAKeyFileOthersCanRead) {
  testing::TempDatabase t;
  const std::string key = t.dir() + "/node-1.psk";
  std::ofstream(key) << "00112233445566778899aabbccddeeff\n";
  ASSERT_EQ(chmod(key.c_str(), 0640), 0);
  const CommandResult run = testing::RunCommand(
      std::string(EDGEADMM_DEVICE_PATH) + " --identity node-1 --psk-file " +
      key + " --data /nonexistent --state-dir " + t.dir() + "/state");
  EXPECT_NE(run.exit_code, 0);
  EXPECT_NE(run.output.find("readable by group or others"), std::string::npos)
      << run.output;
}

TEST(KeysAtRestTest, FleetRefusesAKeyFileOthersCanRead) {
  testing::TempDatabase t;
  const std::string dir = t.dir() + "/psk";
  ASSERT_EQ(mkdir(dir.c_str(), 0700), 0);
  std::ofstream(dir + "/node-1") << "00112233445566778899aabbccddeeff\n";
  ASSERT_EQ(chmod((dir + "/node-1").c_str(), 0644), 0);
  const CommandResult run = testing::RunCommand(
      std::string(EDGEADMM_FLEET_PATH) + " connect --port 9 --psk-dir " + dir +
      " --data /nonexistent");
  EXPECT_NE(run.exit_code, 0);
  EXPECT_NE(run.output.find("readable by group or others"), std::string::npos)
      << run.output;
}

}  // namespace
}  // namespace edgeadmm::registry
