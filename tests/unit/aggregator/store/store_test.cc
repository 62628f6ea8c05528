#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "edgeadmm/store/blob.h"
#include "edgeadmm/store/database.h"
#include "edgeadmm/store/schema.h"
#include "edgeadmm/store/transaction.h"
#include "test_database.h"

namespace edgeadmm::store {
namespace {

int64_t QueryInt(Database& db, const char* sql) {
  auto stmt = db.Prepare(sql);
  EXPECT_TRUE(stmt.ok());
  EXPECT_TRUE(stmt->StepRow().ok());
  return stmt->ColumnInt(0);
}

TEST(StoreTest, OpenCreatesVersionedSchemaInWalMode) {
  testing::TempDatabase t;
  EXPECT_EQ(QueryInt(t.db(), "PRAGMA user_version"), kSchemaVersion);
  auto mode = t.db().Prepare("PRAGMA journal_mode");
  ASSERT_TRUE(mode.ok());
  ASSERT_TRUE(mode->StepRow().ok());
  EXPECT_EQ(mode->ColumnText(0), "wal");
  EXPECT_EQ(QueryInt(t.db(),
                     "SELECT count(*) FROM sqlite_master WHERE type='table' "
                     "AND name IN ('devices','jobs','job_devices','rounds',"
                     "'uploads','models','ledger')"),
            7);
}

TEST(StoreTest, ReopenKeepsDataAndDoesNotMigrateTwice) {
  testing::TempDatabase t;
  ASSERT_TRUE(t.db()
                  .Exec("INSERT INTO devices(id, psk, created_at) VALUES "
                        "('a', x'00', 1)")
                  .ok());
  t.Reopen();
  EXPECT_EQ(QueryInt(t.db(), "SELECT count(*) FROM devices"), 1);
  EXPECT_EQ(QueryInt(t.db(), "PRAGMA user_version"), kSchemaVersion);
}

TEST(StoreTest, RefusesSchemaNewerThanBuild) {
  testing::TempDatabase t;
  ASSERT_TRUE(t.db().Exec("PRAGMA user_version=99").ok());
  auto db = Database::Open(t.path());
  EXPECT_EQ(db.status(), Status::FailedPrecondition());
}

TEST(StoreTest, TransactionRollsBackUnlessCommitted) {
  testing::TempDatabase t;
  {
    auto tx = Transaction::Begin(t.db());
    ASSERT_TRUE(tx.ok());
    ASSERT_TRUE(t.db()
                    .Exec("INSERT INTO devices(id, psk, created_at) VALUES "
                          "('gone', x'00', 1)")
                    .ok());
  }
  EXPECT_EQ(QueryInt(t.db(), "SELECT count(*) FROM devices"), 0);
  {
    auto tx = Transaction::Begin(t.db());
    ASSERT_TRUE(tx.ok());
    ASSERT_TRUE(t.db()
                    .Exec("INSERT INTO devices(id, psk, created_at) VALUES "
                          "('kept', x'00', 1)")
                    .ok());
    ASSERT_TRUE(tx->Commit().ok());
  }
  t.Reopen();
  EXPECT_EQ(QueryInt(t.db(), "SELECT count(*) FROM devices"), 1);
}

TEST(StoreTest, ConstraintViolationIsAlreadyExists) {
  testing::TempDatabase t;
  auto insert = [&] {
    auto stmt = t.db().Prepare(
        "INSERT INTO devices(id, psk, created_at) VALUES ('d', x'00', 1)");
    EXPECT_TRUE(stmt.ok());
    return stmt->Run();
  };
  EXPECT_TRUE(insert().ok());
  EXPECT_EQ(insert(), Status::AlreadyExists());
}

TEST(StoreTest, PrepareErrorIsInternal) {
  testing::TempDatabase t;
  EXPECT_EQ(t.db().Prepare("SELEKT 1").status(), Status::Internal());
}

TEST(BlobTest, DoublesRoundTripExactly) {
  const std::vector<double> v = {0.0, -1.5, 1e-300, 3.141592653589793,
                                 std::numeric_limits<double>::infinity()};
  const std::vector<uint8_t> bytes = EncodeDoubles(v);
  ASSERT_EQ(bytes.size(), 40u);
  EXPECT_EQ(bytes[8 + 7], 0xbf);  // -1.5 = 0xbff8000000000000, little-endian
  auto back = DecodeDoubles(bytes);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, v);
  EXPECT_EQ(DecodeDoubles(std::vector<uint8_t>(7)).status(),
            Status::DataLoss());
}

TEST(BlobTest, FloatsRejectBadSizeAndNonFinite) {
  auto back = DecodeFloats(EncodeFloats({1.0, -0.25}));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, (std::vector<double>{1.0, -0.25}));
  EXPECT_EQ(DecodeFloats(std::vector<uint8_t>(5)).status(), Status::DataLoss());
  EXPECT_EQ(DecodeFloats(EncodeFloats({std::nan("")})).status(),
            Status::DataLoss());
  // float32 infinity: 0x7f800000.
  EXPECT_EQ(DecodeFloats({0x00, 0x00, 0x80, 0x7f}).status(),
            Status::DataLoss());
}

}  // namespace
}  // namespace edgeadmm::store
