// store::WriteBatch: the Transactions of an open batch are savepoints of one
// SQLite transaction, committed by the batch; a failed batch COMMIT loses
// them all and says so (DATA_LOSS). Writes fail through the FaultyVfs shim,
// so this runs in the group commit test's binary.
#include "edgeadmm/store/write_batch.h"

#include <gtest/gtest.h>

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

int64_t Devices(Database& db) {
  return QueryInt(db, "SELECT count(*) FROM devices");
}

using WriteBatchTest = FaultyVfsTest;

TEST_F(WriteBatchTest, TransactionsCommitTogetherAndRollBackAlone) {
  TempDatabase t;
  auto other = Database::Open(t.path());
  ASSERT_TRUE(other.ok());
  WriteBatch batch(t.db());
  ASSERT_TRUE(batch.open());
  EXPECT_TRUE(batch.Commit().ok());  // nothing yet: nothing to commit
  EXPECT_FALSE(t.db().InTransaction());
  ASSERT_TRUE(AddDevice(t.db(), "a", true).ok());
  ASSERT_TRUE(AddDevice(t.db(), "dropped", false).ok());
  ASSERT_TRUE(AddDevice(t.db(), "b", true).ok());
  // One SQLite transaction holds them: this connection sees its own two
  // rows (the dropped one undone alone), another connection none yet.
  EXPECT_TRUE(t.db().InTransaction());
  EXPECT_EQ(Devices(t.db()), 2);
  EXPECT_EQ(Devices(*other), 0);
  ASSERT_TRUE(batch.Commit().ok());
  EXPECT_FALSE(t.db().InTransaction());
  EXPECT_EQ(Devices(*other), 2);
  EXPECT_EQ(batch.TakeCommitted(), 2u);
  EXPECT_EQ(batch.TakeCommitted(), 0u);
  // The batch stays open: the next Transaction begins the next one.
  ASSERT_TRUE(AddDevice(t.db(), "c", true).ok());
  EXPECT_TRUE(t.db().InTransaction());
  ASSERT_TRUE(batch.Commit().ok());
  EXPECT_EQ(batch.TakeCommitted(), 1u);
  EXPECT_EQ(Devices(*other), 3);
}

TEST_F(WriteBatchTest, NoCommitWhileATransactionIsOpenInIt) {
  TempDatabase t;
  WriteBatch batch(t.db());
  {
    auto tx = Transaction::Begin(t.db());
    ASSERT_TRUE(tx.ok());
    ASSERT_TRUE(t.db()
                    .Exec("INSERT INTO devices(id, psk, created_at) VALUES "
                          "('open', x'00', 1)")
                    .ok());
    EXPECT_EQ(batch.Commit(), Status::FailedPrecondition());
    ASSERT_TRUE(tx->Commit().ok());
  }
  ASSERT_TRUE(batch.Commit().ok());
  t.Reopen();
  EXPECT_EQ(Devices(t.db()), 1);
}

TEST_F(WriteBatchTest, ClosingUncommittedRollsBack) {
  TempDatabase t;
  {
    WriteBatch batch(t.db());
    ASSERT_TRUE(AddDevice(t.db(), "never", true).ok());
  }
  EXPECT_FALSE(t.db().InTransaction());
  EXPECT_EQ(Devices(t.db()), 0);
  // Closed: a Transaction is a transaction of its own again.
  ASSERT_TRUE(AddDevice(t.db(), "alone", true).ok());
  EXPECT_FALSE(t.db().InTransaction());
  EXPECT_EQ(Devices(t.db()), 1);
}

TEST_F(WriteBatchTest, NotOpenedInsideATransactionOrTwice) {
  TempDatabase t;
  {
    WriteBatch outer(t.db());
    WriteBatch inner(t.db());
    EXPECT_TRUE(outer.open());
    EXPECT_FALSE(inner.open());
    EXPECT_TRUE(inner.Commit().ok());  // a closed batch commits nothing
  }
  ASSERT_TRUE(t.db().Exec("BEGIN").ok());
  WriteBatch late(t.db());
  EXPECT_FALSE(late.open());
  ASSERT_TRUE(t.db().Exec("ROLLBACK").ok());
}

// The disk fills up as the batch commits: SQLite rolls the whole
// transaction back, so every Transaction committed into it is gone.
TEST_F(WriteBatchTest, AFailedCommitLosesTheBatchAndSaysSo) {
  TempDatabase t;
  ASSERT_TRUE(AddDevice(t.db(), "before", true).ok());
  {
    WriteBatch batch(t.db());
    ASSERT_TRUE(AddDevice(t.db(), "lost-1", true).ok());
    ASSERT_TRUE(AddDevice(t.db(), "lost-2", true).ok());
    vfs_->FailFrom(0, FaultyVfs::Fault::kFull);
    EXPECT_EQ(batch.Commit(), Status::DataLoss());
    EXPECT_GE(vfs_->failures(), 1);
    vfs_->Heal();
    EXPECT_FALSE(t.db().InTransaction());
    // Lost stays lost while the batch is open: no Transaction may begin as
    // if the writes before it were there, and Commit says so again.
    EXPECT_EQ(AddDevice(t.db(), "after", true), Status::DataLoss());
    EXPECT_EQ(batch.Commit(), Status::DataLoss());
    EXPECT_EQ(batch.TakeCommitted(), 0u);
  }
  t.Reopen();
  EXPECT_EQ(Devices(t.db()), 1);  // "before" only
  ASSERT_TRUE(AddDevice(t.db(), "later", true).ok());
  EXPECT_EQ(Devices(t.db()), 2);
}

// SQLite may roll the whole transaction back inside a Transaction (an I/O
// error while it writes): the batch notices at its next step.
TEST_F(WriteBatchTest, ATransactionRolledBackUnderTheBatchLosesIt) {
  TempDatabase t;
  WriteBatch batch(t.db());
  ASSERT_TRUE(AddDevice(t.db(), "lost", true).ok());
  ASSERT_TRUE(t.db().InTransaction());
  // What SQLite does after such an error, done by hand.
  ASSERT_TRUE(t.db().Exec("ROLLBACK").ok());
  EXPECT_EQ(AddDevice(t.db(), "next", true), Status::DataLoss());
  EXPECT_EQ(batch.Commit(), Status::DataLoss());
  EXPECT_EQ(Devices(t.db()), 0);
}

}  // namespace
}  // namespace edgeadmm::store
