// store::GroupCommit: the commits made while it is alive skip their fsync;
// its Sync() makes them durable with one. Syncs are counted (and failed)
// through the FaultyVfs shim, so this is its own binary.
#include "edgeadmm/store/group_commit.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "edgeadmm/store/database.h"
#include "edgeadmm/store/transaction.h"
#include "faulty_vfs.h"
#include "faulty_vfs_test.h"
#include "test_database.h"

namespace edgeadmm::store {
namespace {

using testing::FaultyVfs;
using testing::QueryInt;
using testing::TempDatabase;

// Counts xSync calls from now on without failing any.
void CountSyncs(FaultyVfs& vfs) {
  vfs.FailFrom(INT64_MAX, FaultyVfs::Fault::kSync);
}

using GroupCommitTest = FaultyVfsTest;

TEST_F(GroupCommitTest, ManyCommitsOneSync) {
  TempDatabase t;
  // Without a group: every commit fsyncs the WAL (synchronous=FULL).
  CountSyncs(*vfs_);
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(AddDevice(t.db(), "alone-" + std::to_string(i), true).ok());
  }
  EXPECT_GE(vfs_->calls(), 5);

  CountSyncs(*vfs_);
  {
    GroupCommit group(t.db());
    ASSERT_TRUE(group.armed());
    EXPECT_EQ(QueryInt(t.db(), "PRAGMA synchronous"), 1);  // NORMAL
    for (int i = 0; i < 5; ++i) {
      ASSERT_TRUE(AddDevice(t.db(), "grouped-" + std::to_string(i), true).ok());
    }
    ASSERT_TRUE(AddDevice(t.db(), "rolled-back", false).ok());
    EXPECT_EQ(group.pending(), 5u);  // a rollback commits nothing
    EXPECT_EQ(vfs_->calls(), 0);     // no fsync yet
    // Committed: another connection sees the rows before the sync.
    auto other = Database::Open(t.path());
    ASSERT_TRUE(other.ok());
    EXPECT_EQ(QueryInt(*other, "SELECT count(*) FROM devices"), 10);
    ASSERT_TRUE(group.Sync().ok());
    EXPECT_EQ(vfs_->calls(), 1);
    EXPECT_EQ(group.pending(), 0u);
    ASSERT_TRUE(group.Sync().ok());  // nothing new: no second fsync
    EXPECT_EQ(vfs_->calls(), 1);
  }
  EXPECT_EQ(QueryInt(t.db(), "PRAGMA synchronous"), 2);  // FULL again
  t.Reopen();
  EXPECT_EQ(QueryInt(t.db(), "SELECT count(*) FROM devices"), 10);
}

TEST_F(GroupCommitTest, AFailedSyncIsReportedAndRetriedByTheNext) {
  TempDatabase t;
  GroupCommit group(t.db());
  ASSERT_TRUE(AddDevice(t.db(), "a", true).ok());
  vfs_->FailFrom(0, FaultyVfs::Fault::kSync);
  EXPECT_EQ(group.Sync(), Status::Internal());
  EXPECT_EQ(vfs_->failures(), 1);
  EXPECT_EQ(group.pending(), 1u);  // still not known to be durable
  vfs_->Heal();
  EXPECT_TRUE(group.Sync().ok());
  EXPECT_EQ(group.pending(), 0u);
}

TEST_F(GroupCommitTest, NotArmedInsideATransaction) {
  TempDatabase t;
  auto tx = Transaction::Begin(t.db());
  ASSERT_TRUE(tx.ok());
  GroupCommit group(t.db());
  EXPECT_FALSE(group.armed());
  EXPECT_TRUE(group.Sync().ok());
}

}  // namespace
}  // namespace edgeadmm::store
