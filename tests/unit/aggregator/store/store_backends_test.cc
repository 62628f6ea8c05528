// The store interface on both backends: the same bodies against SQLite and
// against a throwaway PostgreSQL cluster (backend_test.h).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "backend_test.h"
#include "edgeadmm/store/blob.h"
#include "edgeadmm/store/database.h"
#include "edgeadmm/store/group_commit.h"
#include "edgeadmm/store/postgres_dialect.h"
#include "edgeadmm/store/schema.h"
#include "edgeadmm/store/transaction.h"
#include "test_database.h"

namespace edgeadmm::store {
namespace {

class StoreBackendTest : public testing::BackendTest {};

TEST_P(StoreBackendTest, OpensAtTheNewestVersionAndReopensWithoutMigrating) {
  testing::TempDatabase t(GetParam());
  EXPECT_EQ(t.db().postgresql(), GetParam() == testing::Backend::kPostgres);
  EXPECT_EQ(testing::QueryInt(t.db(), "PRAGMA user_version"), kSchemaVersion);
  ASSERT_TRUE(t.db()
                  .Exec("INSERT INTO devices(id, psk, created_at) VALUES "
                        "('a', x'00ff', 1)")
                  .ok());
  t.Reopen();
  EXPECT_EQ(testing::QueryInt(t.db(), "SELECT count(*) FROM devices"), 1);
  EXPECT_EQ(testing::QueryInt(t.db(), "PRAGMA user_version"), kSchemaVersion);
  auto psk = t.db().Prepare("SELECT psk, hex(psk) FROM devices");
  ASSERT_TRUE(psk.ok());
  ASSERT_TRUE(psk->StepRow().ok());
  EXPECT_EQ(psk->ColumnBlob(0), (std::vector<uint8_t>{0x00, 0xff}));
  EXPECT_EQ(psk->ColumnText(1), "00FF");
}

TEST_P(StoreBackendTest, ValuesRoundTripBitForBit) {
  testing::TempDatabase t(GetParam());
  const std::vector<double> z = {0.1, -0.0, 1e-310, 1e308,
                                 std::numeric_limits<double>::infinity()};
  const std::vector<uint8_t> bytes = {0, 1, 2, 0x27, 0x5c, 0xff};
  const int64_t big = std::numeric_limits<int64_t>::min() + 1;
  auto insert = t.db().Prepare(
      "INSERT INTO devices(id, psk, created_at, lifetime_epsilon, "
      "lifetime_delta) VALUES (?, ?, ?, ?, ?)");
  ASSERT_TRUE(insert.ok());
  ASSERT_TRUE(insert->Bind(1, "it's \xc3\xa9")
                  .BindBlob(2, bytes)
                  .Bind(3, big)
                  .Bind(4, 0.1)
                  .BindNull(5)
                  .Run()
                  .ok());
  ASSERT_TRUE(insert->Reset().ok());
  ASSERT_TRUE(insert->Bind(1, "doubles")
                  .BindDoubles(2, z)
                  .Bind(3, int64_t{2})
                  .Bind(4, 1e-300)
                  .Bind(5, 2.5)
                  .Run()
                  .ok());
  auto read = t.db().Prepare(
      "SELECT id, psk, created_at, lifetime_epsilon, lifetime_delta FROM "
      "devices ORDER BY created_at");
  ASSERT_TRUE(read.ok());
  ASSERT_TRUE(read->StepRow().ok());
  EXPECT_EQ(read->ColumnText(0), "it's \xc3\xa9");
  EXPECT_EQ(read->ColumnBlob(1), bytes);
  EXPECT_EQ(read->ColumnInt(2), big);
  EXPECT_EQ(read->ColumnDouble(3), 0.1);
  EXPECT_TRUE(read->ColumnIsNull(4));
  EXPECT_FALSE(read->ColumnIsNull(3));
  ASSERT_TRUE(read->StepRow().ok());
  auto decoded = DecodeDoubles(read->ColumnBlob(1));
  ASSERT_TRUE(decoded.ok());
  ASSERT_EQ(decoded->size(), z.size());
  EXPECT_EQ(EncodeDoubles(*decoded), EncodeDoubles(z));  // -0.0 included
  EXPECT_EQ(read->ColumnDouble(3), 1e-300);
  EXPECT_EQ(read->ColumnDouble(4), 2.5);
  EXPECT_EQ(read->StepRow(), Status::NotFound());
}

TEST_P(StoreBackendTest, NumberedPlaceholdersRepeat) {
  testing::TempDatabase t(GetParam());
  auto stmt = t.db().Prepare("SELECT ?1 + ?1 + ?2");
  ASSERT_TRUE(stmt.ok());
  ASSERT_TRUE(stmt->Bind(1, int64_t{20}).Bind(2, int64_t{2}).StepRow().ok());
  EXPECT_EQ(stmt->ColumnInt(0), 42);
  EXPECT_EQ(testing::QueryInt(t.db(), "SELECT 3 > 2"), 1);
}

TEST_P(StoreBackendTest, LastInsertIdIsTheNewRowsKey) {
  testing::TempDatabase t(GetParam());
  for (int64_t expected = 1; expected <= 2; ++expected) {
    auto stmt = t.db().Prepare(
        "INSERT INTO jobs(name, config, state, sigma, n, dimension, "
        "created_at) VALUES (?, '', 'created', 1.0, 1, 1, 0)");
    ASSERT_TRUE(stmt.ok());
    ASSERT_TRUE(stmt->Bind(1, "job" + std::to_string(expected)).Run().ok());
    EXPECT_EQ(t.db().LastInsertId(), expected);
    EXPECT_EQ(t.db().Changes(), 1);
  }
}

// A constraint violation and a syntax error: StoreOnBothTest.
TEST_P(StoreBackendTest, ErrorsMapToTheSameCodes) {
  testing::TempDatabase t(GetParam());
  const char* insert =
      "INSERT INTO devices(id, psk, created_at) VALUES ('a', x'00', 1)";
  ASSERT_TRUE(t.db().Exec(insert).ok());
  EXPECT_EQ(t.db().Exec(insert), Status::AlreadyExists());
  EXPECT_FALSE(t.db().LastError().empty());
  EXPECT_EQ(t.db().Prepare("SELECT * FROM no_such_table").status(),
            Status::Internal());
  auto stmt = t.db().Prepare("SELECT ?");
  ASSERT_TRUE(stmt.ok());
  EXPECT_EQ(stmt->Bind(2, int64_t{1}).Step().status(), Status::Internal());
}

// Rollback and commit themselves: StoreOnBothTest in store_test.cc.
TEST_P(StoreBackendTest, TransactionStateAndOneCommitAreVisibleToOthers) {
  testing::TempDatabase t(GetParam());
  ASSERT_TRUE(t.db().Exec("UPDATE devices SET enabled = 0").ok());
  EXPECT_EQ(t.db().Changes(), 0);
  auto tx = Transaction::Begin(t.db());
  ASSERT_TRUE(tx.ok());
  EXPECT_TRUE(t.db().InTransaction());
  ASSERT_TRUE(t.db()
                  .Exec("INSERT INTO devices(id, psk, created_at) VALUES "
                        "('kept', x'00', 1)")
                  .ok());
  ASSERT_TRUE(tx->Commit().ok());
  EXPECT_FALSE(t.db().InTransaction());
  EXPECT_EQ(tx->Commit(), Status::FailedPrecondition());
  auto other = Database::Open(t.path());  // another connection sees it
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(testing::QueryInt(*other, "SELECT count(*) FROM devices"), 1);
}

// BEGIN IMMEDIATE's guarantee (PostgreSQL: the advisory write lock): while
// one connection writes, another's write transaction waits and then gets
// UNAVAILABLE, and it can write once the first commits.
TEST_P(StoreBackendTest, OneWriterAtATime) {
  testing::TempDatabase t(GetParam());
  auto other = Database::Open(t.path());
  ASSERT_TRUE(other.ok());
  // The wait, shortened from 5 s (the one line that names the engine).
  ASSERT_TRUE(other
                  ->Exec(other->postgresql() ? "SET lock_timeout = '200ms'"
                                             : "PRAGMA busy_timeout = 200")
                  .ok());
  auto tx = Transaction::Begin(t.db());
  ASSERT_TRUE(tx.ok());
  EXPECT_EQ(Transaction::Begin(*other).status(), Status::Unavailable());
  EXPECT_FALSE(other->InTransaction());
  ASSERT_TRUE(tx->Commit().ok());
  auto second = Transaction::Begin(*other);
  ASSERT_TRUE(second.ok());
  ASSERT_TRUE(other
                  ->Exec("INSERT INTO devices(id, psk, created_at) VALUES "
                         "('b', x'00', 1)")
                  .ok());
  EXPECT_TRUE(second->Commit().ok());
}

TEST_P(StoreBackendTest, AnotherConnectionsWriteChangesTheDataVersion) {
  testing::TempDatabase t(GetParam());
  auto other = Database::Open(t.path());
  ASSERT_TRUE(other.ok());
  const int64_t before = testing::QueryInt(t.db(), "PRAGMA data_version");
  ASSERT_TRUE(other
                  ->Exec("INSERT INTO devices(id, psk, created_at) VALUES "
                         "('b', x'00', 1)")
                  .ok());
  EXPECT_NE(testing::QueryInt(t.db(), "PRAGMA data_version"), before);
}

TEST_P(StoreBackendTest, Float64LeIsTheLittleEndianDouble) {
  testing::TempDatabase t(GetParam());
  auto stmt = t.db().Prepare("SELECT float64le(?), float64le(NULL)");
  ASSERT_TRUE(stmt.ok());
  ASSERT_TRUE(stmt->Bind(1, 1.5).StepRow().ok());
  EXPECT_EQ(stmt->ColumnBlob(0), EncodeDoubles({1.5}));
  EXPECT_TRUE(stmt->ColumnIsNull(1));
}

// Group commit defers SQLite's fsyncs; on PostgreSQL (synchronous_commit
// on) every commit stays durable on its own, so it does not arm.
TEST_P(StoreBackendTest, GroupCommitArmsOnlyOnSqlite) {
  testing::TempDatabase t(GetParam());
  GroupCommit group(t.db());
  EXPECT_EQ(group.armed(), GetParam() == testing::Backend::kSqlite);
  ASSERT_TRUE(t.db()
                  .Exec("INSERT INTO devices(id, psk, created_at) VALUES "
                        "('a', x'00', 1)")
                  .ok());
  EXPECT_EQ(group.pending(), group.armed() ? 1u : 0u);
  EXPECT_TRUE(group.Sync().ok());
}

EDGEADMM_INSTANTIATE_BACKENDS(StoreBackendTest);

TEST(RedactTargetTest, PasswordsNeverShow) {
  EXPECT_EQ(RedactTarget("/var/lib/edgeadmm/aggregator.db"),
            "/var/lib/edgeadmm/aggregator.db");
  EXPECT_EQ(RedactTarget("postgresql://gw:s3cret@db.example:5432/edgeadmm"),
            "postgresql://gw:***@db.example:5432/edgeadmm");
  EXPECT_EQ(
      RedactTarget("postgresql://gw@db/e?password=s3cret&sslmode=verify-full"),
      "postgresql://gw@db/e?password=***&sslmode=verify-full");
  EXPECT_EQ(RedactTarget("host=db password='a b' dbname=e"),
            "host=db password=*** dbname=e");
  EXPECT_EQ(RedactTarget("postgresql://gw@db/e"), "postgresql://gw@db/e");
}

TEST(PostgresDialectTest, TranslatesWhatTheEnginesSpellDifferently) {
  int parameters = 0;
  EXPECT_EQ(TranslateToPostgres("SELECT ? , '?', ?3, ?", &parameters),
            "SELECT $1 , '?', $3, $4");
  EXPECT_EQ(parameters, 4);
  EXPECT_EQ(TranslateToPostgres("VALUES (x'0aFF', 'x''1')"),
            "VALUES ('\\x0aFF'::bytea, 'x''1')");
  EXPECT_EQ(TranslateToPostgres("id INTEGER PRIMARY KEY, n INTEGER, r REAL, "
                                "b BLOB"),
            "id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, n "
            "BIGINT, r DOUBLE PRECISION, b BYTEA");
  EXPECT_EQ(TranslateToPostgres("PRAGMA user_version=7"),
            "UPDATE edgeadmm_schema_version SET version = 7");
  EXPECT_EQ(TranslateToPostgres("BEGIN IMMEDIATE"),
            "BEGIN; SELECT pg_advisory_xact_lock(" +
                std::to_string(kWriteLockKey) + ")");
  EXPECT_EQ(TranslateToPostgres("SELECT hex(x), hexagon(y) -- ?"),
            "SELECT pg_temp.hex(x), hexagon(y) -- ?");
}

}  // namespace
}  // namespace edgeadmm::store
