#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "backend_test.h"
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

// Takes a database back to schema version 3 (drops version 5's and 4's
// columns).
// Version 11's column (an upload's algorithm-owned bytes), back to the
// REAL column of version 5 it replaced.
// Version 13's table (the open secure round a restart resumes).
#define EDGEADMM_DROP_VERSION13 "DROP TABLE secure_rounds; "
constexpr const char* kDropVersion13 =
    EDGEADMM_DROP_VERSION13 "PRAGMA user_version=12";
// Version 12's (rounds shared by several gateways).
#define EDGEADMM_DROP_VERSION12               \
  EDGEADMM_DROP_VERSION13                     \
  "DROP TABLE registry_changes; "             \
  "DROP TABLE round_cohorts; "                \
  "ALTER TABLE uploads DROP COLUMN gateway; " \
  "ALTER TABLE rounds DROP COLUMN deadline_at; "
constexpr const char* kDropVersion12 =
    EDGEADMM_DROP_VERSION12 "PRAGMA user_version=11";
#define EDGEADMM_DROP_VERSION11             \
  EDGEADMM_DROP_VERSION12                   \
  "ALTER TABLE uploads DROP COLUMN extra; " \
  "ALTER TABLE uploads ADD COLUMN pp_loss REAL; "
constexpr const char* kDropVersion11 =
    EDGEADMM_DROP_VERSION11 "PRAGMA user_version=10";
// Version 10's columns (the lifetime budget on the central ledgers).
#define EDGEADMM_DROP_VERSION10                       \
  EDGEADMM_DROP_VERSION11                             \
  "ALTER TABLE devices DROP COLUMN central_epsilon; " \
  "ALTER TABLE devices DROP COLUMN central_delta; "
// Version 9's table (the devices' upload sums).
#define EDGEADMM_DROP_VERSION9 \
  EDGEADMM_DROP_VERSION10 "DROP TABLE upload_sums; "
constexpr const char* kDropVersion9 =
    EDGEADMM_DROP_VERSION9 "PRAGMA user_version=8";
// Version 8's columns (open rounds that survive a restart).
#define EDGEADMM_DROP_VERSION8                    \
  EDGEADMM_DROP_VERSION9                          \
  "ALTER TABLE uploads DROP COLUMN fingerprint; " \
  "ALTER TABLE rounds DROP COLUMN retries; "
constexpr const char* kDropVersion8 =
    EDGEADMM_DROP_VERSION8 "PRAGMA user_version=7";
// Version 7's columns (admm-sharing's per-party rows: the device's report).
#define EDGEADMM_DROP_VERSION7                               \
  EDGEADMM_DROP_VERSION8                                     \
  "ALTER TABLE ledger DROP COLUMN reported_participations; " \
  "ALTER TABLE ledger DROP COLUMN reported_epsilon; "        \
  "ALTER TABLE ledger DROP COLUMN reported_delta; "          \
  "ALTER TABLE ledger DROP COLUMN reported_conversion; "
constexpr const char* kDropVersion7 =
    EDGEADMM_DROP_VERSION7 "PRAGMA user_version=6";
// Version 6's columns (admm-sharing's test score of a model).
#define EDGEADMM_DROP_VERSION6                     \
  EDGEADMM_DROP_VERSION7                           \
  "ALTER TABLE models DROP COLUMN test_records; "  \
  "ALTER TABLE models DROP COLUMN test_log_loss; " \
  "ALTER TABLE models DROP COLUMN test_accuracy; "
constexpr const char* kDropVersion6 =
    EDGEADMM_DROP_VERSION6 "PRAGMA user_version=5";
constexpr const char* kDropVersion4 = EDGEADMM_DROP_VERSION6
    "ALTER TABLE uploads DROP COLUMN pp_loss; "
    "ALTER TABLE models DROP COLUMN validation_loss; "
    "ALTER TABLE models DROP COLUMN validation_objective; "
    "ALTER TABLE models DROP COLUMN validation_accuracy; "
    "ALTER TABLE jobs DROP COLUMN end_reason; PRAGMA user_version=3";

// Version 2 labels each ledger row with its conversion; rows written
// before it were classic.
TEST(StoreTest, MigrationTwoLabelsOldLedgerRowsClassic) {
  testing::TempDatabase t;
  ASSERT_TRUE(t.db().Exec(kDropVersion4).ok());
  ASSERT_TRUE(t.db().Exec("ALTER TABLE ledger DROP COLUMN conversion").ok());
  ASSERT_TRUE(t.db()
                  .Exec("ALTER TABLE devices DROP COLUMN lifetime_epsilon; "
                        "ALTER TABLE devices DROP COLUMN lifetime_delta")
                  .ok());
  ASSERT_TRUE(t.db().Exec("PRAGMA user_version=1").ok());
  ASSERT_TRUE(t.db()
                  .Exec("INSERT INTO jobs VALUES (1, 'j', '', 'created', 1, 1, "
                        "1, 0); INSERT INTO ledger(job_id, scope, round_id, "
                        "epsilon, rdp) VALUES (1, 'central', 1, 2.5, x'')")
                  .ok());
  ASSERT_TRUE(MigrateSchema(t.db()).ok());
  EXPECT_EQ(QueryInt(t.db(), "PRAGMA user_version"), kSchemaVersion);
  EXPECT_EQ(QueryInt(t.db(),
                     "SELECT count(*) FROM ledger WHERE conversion = "
                     "'classic'"),
            1);
}

// Version 3 adds the devices' lifetime budgets; enrolled devices start
// without one (NULL: no lifetime limit).
TEST(StoreTest, MigrationThreeGivesDevicesNoLifetimeBudget) {
  testing::TempDatabase t;
  ASSERT_TRUE(t.db().Exec(kDropVersion4).ok());
  ASSERT_TRUE(t.db()
                  .Exec("ALTER TABLE devices DROP COLUMN lifetime_epsilon; "
                        "ALTER TABLE devices DROP COLUMN lifetime_delta; "
                        "PRAGMA user_version=2; INSERT INTO devices (id, psk, "
                        "created_at) VALUES ('d', x'00', 0)")
                  .ok());
  ASSERT_TRUE(MigrateSchema(t.db()).ok());
  EXPECT_EQ(QueryInt(t.db(), "PRAGMA user_version"), kSchemaVersion);
  EXPECT_EQ(QueryInt(t.db(),
                     "SELECT count(*) FROM devices WHERE "
                     "lifetime_epsilon IS NULL AND lifetime_delta IS "
                     "NULL"),
            1);
}

// Version 4 adds validation scores to models and an end reason to jobs;
// models and jobs written before it keep every value and have neither.
// Version 5 adds pp-admm's P_i to uploads; older uploads have none.
TEST(StoreTest, MigrationFiveLeavesOldUploadsWithoutPpLoss) {
  testing::TempDatabase t;
  ASSERT_TRUE(t.db()
                  .Exec(EDGEADMM_DROP_VERSION6
                        "ALTER TABLE uploads DROP COLUMN pp_loss; "
                        "PRAGMA user_version=4; INSERT INTO jobs(id, name, "
                        "config, state, sigma, n, dimension, created_at) "
                        "VALUES (1, 'j', '', 'running', 1, 1, 1, 0); "
                        "INSERT INTO rounds(job_id, round_id, state, "
                        "cohort_size, started_at) VALUES (1, 1, 'committed', "
                        "1, 0); INSERT INTO uploads VALUES (1, 1, 'd', x'00', "
                        "x'01')")
                  .ok());
  ASSERT_TRUE(MigrateSchema(t.db()).ok());
  EXPECT_EQ(QueryInt(t.db(), "PRAGMA user_version"), kSchemaVersion);
  EXPECT_EQ(
      QueryInt(t.db(), "SELECT count(*) FROM uploads WHERE extra IS NULL"), 1);
}

// Version 11 moves the REAL values of version 5's column into the upload's
// opaque extra bytes, in pp-admm's encoding (penalty_perturbation_extra.h:
// a float64 LE), so an old database keeps its report; NULL stays NULL.
TEST(StoreTest, MigrationElevenMovesOldLossesIntoExtraBytes) {
  testing::TempDatabase t;
  ASSERT_TRUE(t.db().Exec(kDropVersion11).ok());
  ASSERT_TRUE(t.db()
                  .Exec("INSERT INTO jobs(id, name, config, state, sigma, n, "
                        "dimension, created_at) VALUES (1, 'j', '', "
                        "'running', 0, 2, 5, 0); INSERT INTO rounds(job_id, "
                        "round_id, state, cohort_size, started_at) VALUES (1, "
                        "1, 'committed', 2, 0); INSERT INTO uploads(job_id, "
                        "round_id, device_id, digest, payload, pp_loss) "
                        "VALUES (1, 1, 'a', x'aa', x'01', 0.75), (1, 1, 'b', "
                        "x'bb', x'02', NULL)")
                  .ok());
  ASSERT_EQ(QueryInt(t.db(), "PRAGMA user_version"), 10);
  t.Reopen();  // Database::Open migrates
  EXPECT_EQ(QueryInt(t.db(), "PRAGMA user_version"), kSchemaVersion);
  // 0.75 = 0x3FE8000000000000, little-endian.
  EXPECT_EQ(QueryInt(t.db(),
                     "SELECT count(*) FROM uploads WHERE device_id = 'a' AND "
                     "extra = x'000000000000e83f' AND payload = x'01'"),
            1);
  EXPECT_EQ(QueryInt(t.db(),
                     "SELECT count(*) FROM uploads WHERE device_id = 'b' AND "
                     "extra IS NULL AND payload = x'02'"),
            1);
  EXPECT_EQ(QueryInt(t.db(),
                     "SELECT count(*) FROM pragma_table_info('uploads') "
                     "WHERE name = 'pp_loss'"),
            0);
}

// Version 12 keeps every round and upload of an older database; they have
// no deadline and no gateway, and no cohort is stored for them.
TEST(StoreTest, MigrationTwelveKeepsRoundsWithoutSharedColumns) {
  testing::TempDatabase t;
  ASSERT_TRUE(t.db().Exec(kDropVersion12).ok());
  ASSERT_TRUE(t.db()
                  .Exec("INSERT INTO jobs(id, name, config, state, sigma, n, "
                        "dimension, created_at) VALUES (1, 'j', '', "
                        "'running', 0, 2, 5, 0); INSERT INTO rounds(job_id, "
                        "round_id, state, cohort_size, started_at) VALUES (1, "
                        "1, 'open', 2, 0); INSERT INTO uploads(job_id, "
                        "round_id, device_id, digest, payload) VALUES (1, 1, "
                        "'a', x'aa', x'01')")
                  .ok());
  ASSERT_EQ(QueryInt(t.db(), "PRAGMA user_version"), 11);
  t.Reopen();  // Database::Open migrates
  EXPECT_EQ(QueryInt(t.db(), "PRAGMA user_version"), kSchemaVersion);
  EXPECT_EQ(
      QueryInt(t.db(), "SELECT count(*) FROM rounds WHERE deadline_at IS NULL"),
      1);
  EXPECT_EQ(QueryInt(t.db(),
                     "SELECT count(*) FROM uploads WHERE gateway IS NULL AND "
                     "payload = x'01'"),
            1);
  EXPECT_EQ(QueryInt(t.db(), "SELECT count(*) FROM round_cohorts"), 0);
  EXPECT_EQ(QueryInt(t.db(), "SELECT version FROM registry_changes"), 0);
  // A cohort row names a round that exists; deleting the round deletes it.
  ASSERT_TRUE(t.db()
                  .Exec("INSERT INTO round_cohorts VALUES (1, 1, 'a'); "
                        "DELETE FROM rounds")
                  .ok());
  EXPECT_EQ(QueryInt(t.db(), "SELECT count(*) FROM round_cohorts"), 0);
}

// Version 6 adds admm-sharing's test score to models; models written
// before it keep every value and have none.
TEST(StoreTest, MigrationSixKeepsModelsWithoutTestScores) {
  testing::TempDatabase t;
  ASSERT_TRUE(t.db().Exec(kDropVersion6).ok());
  ASSERT_TRUE(t.db()
                  .Exec("INSERT INTO jobs(id, name, config, state, sigma, n, "
                        "dimension, created_at) VALUES (1, 'j', '', "
                        "'completed', 1, 1, 1, 0); INSERT INTO models VALUES "
                        "(1, 3, 4, x'01', x'02', 0.5, 0.6, 0.7)")
                  .ok());
  ASSERT_TRUE(MigrateSchema(t.db()).ok());
  EXPECT_EQ(QueryInt(t.db(), "PRAGMA user_version"), kSchemaVersion);
  EXPECT_EQ(QueryInt(t.db(),
                     "SELECT count(*) FROM models WHERE iteration = 3 AND "
                     "validation_loss = 0.5 AND validation_accuracy = 0.7 "
                     "AND test_records IS NULL AND test_log_loss IS NULL "
                     "AND test_accuracy IS NULL"),
            1);
}

// Version 7 adds the device's reported ledger to ledger rows; rows written
// before it keep every value and have no report.
TEST(StoreTest, MigrationSevenKeepsLedgerRowsWithoutReports) {
  testing::TempDatabase t;
  ASSERT_TRUE(t.db().Exec(kDropVersion7).ok());
  ASSERT_TRUE(t.db()
                  .Exec("INSERT INTO jobs(id, name, config, state, sigma, n, "
                        "dimension, created_at) VALUES (1, 'j', '', "
                        "'completed', 1, 1, 1, 0); INSERT INTO ledger VALUES "
                        "(1, 'local:d', 3, 0.5, x'00', 'improved')")
                  .ok());
  ASSERT_TRUE(MigrateSchema(t.db()).ok());
  EXPECT_EQ(QueryInt(t.db(), "PRAGMA user_version"), kSchemaVersion);
  EXPECT_EQ(QueryInt(t.db(),
                     "SELECT count(*) FROM ledger WHERE scope = 'local:d' AND "
                     "epsilon = 0.5 AND conversion = 'improved' AND "
                     "reported_participations IS NULL AND reported_epsilon "
                     "IS NULL AND reported_delta IS NULL AND "
                     "reported_conversion IS NULL"),
            1);
}

// Version 8 stores the uploads of rounds that survive a restart with the
// digest of their wire body, and each round's barrier retries: a version 7
// database keeps every upload and round, without a fingerprint (stored at
// their round's commit) and with no retry used.
TEST(StoreTest, MigrationEightKeepsUploadsAndRoundsOfVersionSeven) {
  testing::TempDatabase t;
  ASSERT_TRUE(t.db().Exec(kDropVersion8).ok());
  ASSERT_TRUE(t.db()
                  .Exec("INSERT INTO jobs(id, name, config, state, sigma, n, "
                        "dimension, created_at) VALUES (1, 'j', '', "
                        "'running', 0, 2, 5, 0); INSERT INTO rounds(job_id, "
                        "round_id, state, cohort_size, started_at) VALUES (1, "
                        "1, 'committed', 2, 0), (1, 2, 'open', 2, 7); INSERT "
                        "INTO uploads VALUES (1, 1, 'd', x'aa', x'0102', NULL)")
                  .ok());
  ASSERT_EQ(QueryInt(t.db(), "PRAGMA user_version"), 7);
  t.Reopen();  // Database::Open migrates
  EXPECT_EQ(QueryInt(t.db(), "PRAGMA user_version"), kSchemaVersion);
  // The upload as it was, without a fingerprint; both rounds, no retry.
  constexpr const char* kOldRowsKept =
      "SELECT (SELECT count(*) FROM uploads WHERE round_id = 1 AND digest = "
      "x'aa' AND payload = x'0102' AND fingerprint IS NULL) + (SELECT "
      "count(*) FROM rounds WHERE retries = 0 AND ((round_id = 1 AND state "
      "= 'committed') OR (round_id = 2 AND state = 'open' AND started_at = "
      "7)))";
  EXPECT_EQ(QueryInt(t.db(), kOldRowsKept), 3);
}

TEST(StoreTest, MigrationFourKeepsModelsWithoutScores) {
  testing::TempDatabase t;
  ASSERT_TRUE(t.db().Exec(kDropVersion4).ok());
  ASSERT_TRUE(t.db()
                  .Exec("INSERT INTO jobs VALUES (1, 'j', '', 'completed', 1, "
                        "1, 1, 0); INSERT INTO models VALUES (1, 3, 4, "
                        "x'01', x'02')")
                  .ok());
  ASSERT_TRUE(MigrateSchema(t.db()).ok());
  EXPECT_EQ(QueryInt(t.db(), "PRAGMA user_version"), kSchemaVersion);
  EXPECT_EQ(QueryInt(t.db(),
                     "SELECT count(*) FROM models WHERE iteration = 3 AND "
                     "round_id = 4 AND z = x'01' AND server_state = x'02' AND "
                     "validation_loss IS NULL AND validation_objective IS "
                     "NULL AND validation_accuracy IS NULL"),
            1);
  EXPECT_EQ(QueryInt(t.db(),
                     "SELECT count(*) FROM jobs WHERE state = 'completed' AND "
                     "end_reason IS NULL"),
            1);
}

TEST(StoreTest, RefusesSchemaNewerThanBuild) {
  testing::TempDatabase t;
  ASSERT_TRUE(t.db().Exec("PRAGMA user_version=99").ok());
  auto db = Database::Open(t.path());
  EXPECT_EQ(db.status(), Status::FailedPrecondition());
}

// The same bodies on SQLite and on PostgreSQL (more in
// store_backends_test.cc).
class StoreOnBothTest : public testing::BackendTest {};

TEST_P(StoreOnBothTest, TransactionRollsBackUnlessCommitted) {
  testing::TempDatabase t(GetParam());
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

TEST_P(StoreOnBothTest, ConstraintViolationIsAlreadyExists) {
  testing::TempDatabase t(GetParam());
  auto insert = [&] {
    auto stmt = t.db().Prepare(
        "INSERT INTO devices(id, psk, created_at) VALUES ('d', x'00', 1)");
    EXPECT_TRUE(stmt.ok());
    return stmt->Run();
  };
  EXPECT_TRUE(insert().ok());
  EXPECT_EQ(insert(), Status::AlreadyExists());
}

TEST_P(StoreOnBothTest, PrepareErrorIsInternal) {
  testing::TempDatabase t(GetParam());
  EXPECT_EQ(t.db().Prepare("SELEKT 1").status(), Status::Internal());
}

EDGEADMM_INSTANTIATE_BACKENDS(StoreOnBothTest);

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

// Values whose bytes a wrong encoding would likely get wrong: signs, zeros,
// subnormals, extremes, infinities, NaN and a spread of ordinary values.
std::vector<double> AwkwardValues() {
  std::vector<double> v = {0.0,
                           -0.0,
                           1.0,
                           -1.5,
                           std::numeric_limits<double>::denorm_min(),
                           std::numeric_limits<double>::min(),
                           std::numeric_limits<double>::max(),
                           -std::numeric_limits<double>::infinity(),
                           std::numeric_limits<double>::quiet_NaN(),
                           1e-40,  // subnormal as float32
                           3.4e38};
  double x = 0.7;
  for (int i = 0; i < 200; ++i) {
    x = std::fmod(x * 7919.123, 1000.0) - 500.0;
    v.push_back(x * std::pow(10.0, (i % 61) - 30));
  }
  return v;
}

TEST(BlobTest, MemcpyEncodingsMatchTheByteWiseOnes) {
  const std::vector<double> v = AwkwardValues();
  EXPECT_EQ(EncodeDoubles(v), internal::EncodeDoublesBytewise(v));
  EXPECT_EQ(EncodeFloats(v), internal::EncodeFloatsBytewise(v));
  EXPECT_TRUE(EncodeDoubles({}).empty());
  // The byte-wise encoding itself, against hand-written bytes: 1.0 is
  // 0x3ff0000000000000 and 1.0f is 0x3f800000, least significant byte first.
  EXPECT_EQ(internal::EncodeDoublesBytewise({1.0}),
            (std::vector<uint8_t>{0, 0, 0, 0, 0, 0, 0xf0, 0x3f}));
  EXPECT_EQ(internal::EncodeFloatsBytewise({1.0}),
            (std::vector<uint8_t>{0, 0, 0x80, 0x3f}));
}

TEST(BlobTest, AwkwardDoublesRoundTripBitForBit) {
  const std::vector<double> v = AwkwardValues();
  auto back = DecodeDoubles(EncodeDoubles(v));
  ASSERT_TRUE(back.ok());
  ASSERT_EQ(back->size(), v.size());
  EXPECT_EQ(std::memcmp(back->data(), v.data(), v.size() * sizeof(double)), 0);
}

TEST(BlobTest, FloatsRoundTripThroughFloat32) {
  std::vector<double> v;
  for (double x : AwkwardValues()) {
    const float f = static_cast<float>(x);
    if (std::isfinite(f)) v.push_back(f);
  }
  auto back = DecodeFloats(EncodeFloats(v));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, v);
}

TEST(BlobTest, BindDoublesStoresTheEncodedBytes) {
  testing::TempDatabase t;
  ASSERT_TRUE(t.db().Exec("CREATE TABLE b(x BLOB)").ok());
  const std::vector<double> v = AwkwardValues();
  auto insert = t.db().Prepare("INSERT INTO b VALUES (?)");
  ASSERT_TRUE(insert.ok());
  insert->BindDoubles(1, v);
  ASSERT_TRUE(insert->Run().ok());
  auto select = t.db().Prepare("SELECT x FROM b");
  ASSERT_TRUE(select.ok());
  ASSERT_TRUE(select->StepRow().ok());
  EXPECT_EQ(select->ColumnBlob(0), internal::EncodeDoublesBytewise(v));
}

}  // namespace
}  // namespace edgeadmm::store
