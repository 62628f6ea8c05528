#include "edgeadmm/store/statement_cache.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>

#include "edgeadmm/store/database.h"
#include "test_database.h"

namespace edgeadmm::store {
namespace {

TEST(StatementCacheTest, ReusesTheStatementOfTheSameSql) {
  testing::TempDatabase t;
  const size_t before = t.db().statement_cache().prepared();
  sqlite3_stmt* first = nullptr;
  {
    auto lease = t.db().PrepareCached("SELECT 1");
    ASSERT_TRUE(lease.ok());
    first = (*lease)->handle();
  }
  auto again = t.db().PrepareCached("SELECT 1");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ((*again)->handle(), first);
  EXPECT_EQ(t.db().statement_cache().prepared(), before + 1);
  // Another text is another statement.
  auto other = t.db().PrepareCached("SELECT 2");
  ASSERT_TRUE(other.ok());
  EXPECT_NE((*other)->handle(), first);
}

TEST(StatementCacheTest, ReturnedStatementIsResetAndUnbound) {
  testing::TempDatabase t;
  testing::EnrollDevices(t.db(), 3);
  constexpr char kSql[] = "SELECT id, ?1 FROM devices ORDER BY id";
  {
    auto lease = t.db().PrepareCached(kSql);
    ASSERT_TRUE(lease.ok());
    (*lease)->Bind(1, int64_t{7});
    // Leave it in the middle of its rows (holding a read transaction).
    ASSERT_TRUE((*lease)->StepRow().ok());
    ASSERT_TRUE((*lease)->StepRow().ok());
    EXPECT_EQ((*lease)->ColumnText(0), "dev-001");
    EXPECT_EQ((*lease)->ColumnInt(1), 7);
  }
  auto lease = t.db().PrepareCached(kSql);
  ASSERT_TRUE(lease.ok());
  EXPECT_EQ(sqlite3_stmt_busy((*lease)->handle()), 0);
  ASSERT_TRUE((*lease)->StepRow().ok());
  EXPECT_EQ((*lease)->ColumnText(0), "dev-000");  // from the first row again
  EXPECT_TRUE((*lease)->ColumnIsNull(1));         // the binding is gone
}

TEST(StatementCacheTest, IdleStatementDoesNotBlockSchemaChanges) {
  testing::TempDatabase t;
  ASSERT_TRUE(
      t.db().Exec("CREATE TABLE t(a); INSERT INTO t VALUES (1), (2)").ok());
  {
    auto lease = t.db().PrepareCached("SELECT a FROM t");
    ASSERT_TRUE(lease.ok());
    ASSERT_TRUE((*lease)->StepRow().ok());  // one of two rows read
  }
  // A statement still reading t would make DROP TABLE fail (SQLITE_LOCKED).
  EXPECT_TRUE(t.db().Exec("DROP TABLE t").ok());
}

TEST(StatementCacheTest, CachedStatementFollowsSchemaChanges) {
  testing::TempDatabase t;
  ASSERT_TRUE(t.db().Exec("CREATE TABLE t(a); INSERT INTO t VALUES (1)").ok());
  constexpr char kSql[] = "SELECT * FROM t";
  {
    auto lease = t.db().PrepareCached(kSql);
    ASSERT_TRUE(lease.ok());
    ASSERT_TRUE((*lease)->StepRow().ok());
    EXPECT_EQ(sqlite3_column_count((*lease)->handle()), 1);
  }
  // What a migration does: the cached statement is re-prepared by SQLite.
  ASSERT_TRUE(t.db().Exec("ALTER TABLE t ADD COLUMN b DEFAULT 5").ok());
  const size_t prepared = t.db().statement_cache().prepared();
  auto lease = t.db().PrepareCached(kSql);
  ASSERT_TRUE(lease.ok());
  ASSERT_TRUE((*lease)->StepRow().ok());
  EXPECT_EQ(sqlite3_column_count((*lease)->handle()), 2);
  EXPECT_EQ((*lease)->ColumnInt(1), 5);
  EXPECT_EQ(t.db().statement_cache().prepared(), prepared);  // reused
}

TEST(StatementCacheTest, NestedLeasesOfOneSqlGetTheirOwnStatements) {
  testing::TempDatabase t;
  const size_t before = t.db().statement_cache().prepared();
  {
    auto outer = t.db().PrepareCached("SELECT ?1");
    auto inner = t.db().PrepareCached("SELECT ?1");
    ASSERT_TRUE(outer.ok());
    ASSERT_TRUE(inner.ok());
    EXPECT_NE((*outer)->handle(), (*inner)->handle());
    (*outer)->Bind(1, int64_t{1});
    (*inner)->Bind(1, int64_t{2});
    ASSERT_TRUE((*outer)->StepRow().ok());
    ASSERT_TRUE((*inner)->StepRow().ok());
    EXPECT_EQ((*outer)->ColumnInt(0), 1);
    EXPECT_EQ((*inner)->ColumnInt(0), 2);
  }
  // Both went back: two more leases prepare nothing.
  auto a = t.db().PrepareCached("SELECT ?1");
  auto b = t.db().PrepareCached("SELECT ?1");
  EXPECT_EQ(t.db().statement_cache().prepared(), before + 2);
}

TEST(StatementCacheTest, FullCachePreparesPerUse) {
  testing::TempDatabase t;
  for (size_t i = 0; i < StatementCache::kMaxTexts; ++i) {
    ASSERT_TRUE(t.db().PrepareCached("SELECT " + std::to_string(i)).ok());
  }
  const size_t before = t.db().statement_cache().prepared();
  for (int i = 0; i < 2; ++i) {
    auto lease = t.db().PrepareCached("SELECT 'one too many'");
    ASSERT_TRUE(lease.ok());
    ASSERT_TRUE((*lease)->StepRow().ok());
    EXPECT_EQ((*lease)->ColumnText(0), "one too many");
  }
  EXPECT_EQ(t.db().statement_cache().prepared(), before + 2);
}

TEST(StatementCacheTest, PrepareErrorIsReturned) {
  testing::TempDatabase t;
  const size_t before = t.db().statement_cache().prepared();
  EXPECT_EQ(t.db().PrepareCached("SELEKT 1").status(), Status::Internal());
  EXPECT_EQ(t.db().statement_cache().prepared(), before);
}

}  // namespace
}  // namespace edgeadmm::store
