#include "edgeadmm/store/schema.h"

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <vector>

#include "edgeadmm/log.h"
#include "edgeadmm/store/blob.h"
#include "edgeadmm/store/database.h"
#include "edgeadmm/store/transaction.h"

namespace edgeadmm::store {
namespace {

// Migration i (1-based) moves the schema from version i-1 to i. Append new
// migrations; never edit a released one.
constexpr const char* kMigrations[] = {
    // Version 1.
    R"sql(
CREATE TABLE devices (
  id TEXT PRIMARY KEY,
  psk BLOB NOT NULL,
  enabled INTEGER NOT NULL DEFAULT 1,
  created_at INTEGER NOT NULL
);
CREATE TABLE jobs (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  config TEXT NOT NULL,
  state TEXT NOT NULL,
  sigma REAL NOT NULL,
  n INTEGER NOT NULL,
  dimension INTEGER NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE TABLE job_devices (
  job_id INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
  device_id TEXT NOT NULL,
  PRIMARY KEY (job_id, device_id)
);
CREATE TABLE rounds (
  job_id INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
  round_id INTEGER NOT NULL,
  state TEXT NOT NULL,
  iteration INTEGER,
  cohort_size INTEGER NOT NULL,
  participants INTEGER NOT NULL DEFAULT 0,
  noise_multiplier REAL,
  sampling_rate REAL,
  started_at INTEGER NOT NULL,
  closed_at INTEGER,
  PRIMARY KEY (job_id, round_id)
);
CREATE TABLE uploads (
  job_id INTEGER NOT NULL,
  round_id INTEGER NOT NULL,
  device_id TEXT NOT NULL,
  digest BLOB NOT NULL,
  payload BLOB NOT NULL,
  PRIMARY KEY (job_id, round_id, device_id),
  FOREIGN KEY (job_id, round_id) REFERENCES rounds(job_id, round_id)
    ON DELETE CASCADE
);
CREATE TABLE models (
  job_id INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
  iteration INTEGER NOT NULL,
  round_id INTEGER NOT NULL,
  z BLOB NOT NULL,
  server_state BLOB NOT NULL,
  PRIMARY KEY (job_id, iteration)
);
CREATE TABLE ledger (
  job_id INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
  scope TEXT NOT NULL,
  round_id INTEGER NOT NULL,
  epsilon REAL NOT NULL,
  rdp BLOB NOT NULL,
  PRIMARY KEY (job_id, scope, round_id)
);
)sql",
    // Version 2: the RDP-to-(ε, δ) conversion of each ledger row's ε. Rows
    // written before it were converted with the classic bound.
    R"sql(
ALTER TABLE ledger ADD COLUMN conversion TEXT NOT NULL DEFAULT 'classic';
)sql",
    // Version 3: a device's lifetime budget across jobs (docs/privacy.md,
    // "Lifetime budget"); NULL = no lifetime limit.
    R"sql(
ALTER TABLE devices ADD COLUMN lifetime_epsilon REAL;
ALTER TABLE devices ADD COLUMN lifetime_delta REAL;
)sql",
    // Version 4: each committed model's scores on the gateway's validation
    // data (NULL: not validated), written in the round's commit, and why a
    // finished job ended (NULL before this version).
    R"sql(
ALTER TABLE models ADD COLUMN validation_loss REAL;
ALTER TABLE models ADD COLUMN validation_objective REAL;
ALTER TABLE models ADD COLUMN validation_accuracy REAL;
ALTER TABLE jobs ADD COLUMN end_reason TEXT;
)sql",
    // Version 5: one algorithm's per-upload number (the first value a device
    // reported beside its vector); NULL for every other upload. Version 11
    // replaced it with the opaque `extra` bytes.
    R"sql(
ALTER TABLE uploads ADD COLUMN pp_loss REAL;
)sql",
    // Version 6: a test score the gateway computes for the last model from
    // what the devices sent about its test records (NULL: not scored).
    R"sql(
ALTER TABLE models ADD COLUMN test_records INTEGER;
ALTER TABLE models ADD COLUMN test_log_loss REAL;
ALTER TABLE models ADD COLUMN test_accuracy REAL;
)sql",
    // Version 7: per-party ledger rows ("party:<id>") keep what the device
    // reported with the charged upload (Update.ledger); NULL for every other
    // row and every row written before.
    R"sql(
ALTER TABLE ledger ADD COLUMN reported_participations INTEGER;
ALTER TABLE ledger ADD COLUMN reported_epsilon REAL;
ALTER TABLE ledger ADD COLUMN reported_delta REAL;
ALTER TABLE ledger ADD COLUMN reported_conversion TEXT;
)sql",
    // Version 8: open rounds that survive a restart (barrier rounds,
    // BarrierRounds::ResumesOpenRound): their uploads are stored as they are
    // accepted, with the SHA-256 of what a retransmission repeats (the whole
    // Update body; NULL for uploads stored at their round's commit), and a
    // barrier round's retries so far.
    R"sql(
ALTER TABLE uploads ADD COLUMN fingerprint BLOB;
ALTER TABLE rounds ADD COLUMN retries INTEGER NOT NULL DEFAULT 0;
)sql",
    // Version 9: the sum of each device's accepted uploads in a job and
    // their count (the judge's cap on a device's influence across rounds,
    // docs/security.md "Influence across rounds"), float64 LE. Jobs of
    // earlier versions get theirs from their committed uploads when their
    // engine starts.
    R"sql(
CREATE TABLE upload_sums (
  job_id INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
  device_id TEXT NOT NULL,
  uploads INTEGER NOT NULL,
  sum BLOB NOT NULL,
  PRIMARY KEY (job_id, device_id)
);
)sql",
    // Version 10: a device's lifetime budget on its central ledgers across
    // jobs (docs/privacy.md, "Lifetime budget"); NULL = no limit.
    R"sql(
ALTER TABLE devices ADD COLUMN central_epsilon REAL;
ALTER TABLE devices ADD COLUMN central_delta REAL;
)sql",
    // Version 11: an upload's algorithm-owned bytes (Update.algorithm_extra,
    // opaque to the store; NULL: none) replace version 5's REAL column,
    // whose values move over in the encoding of the one algorithm that sent
    // them (a float64 LE) before it is dropped.
    R"sql(
ALTER TABLE uploads ADD COLUMN extra BLOB;
UPDATE uploads SET extra = float64le(pp_loss) WHERE pp_loss IS NOT NULL;
ALTER TABLE uploads DROP COLUMN pp_loss;
)sql",
    // Version 12: rounds shared by several gateways on one database
    // (docs/aggregator.md, "Several gateways on one database"): each round's
    // deadline (NULL before this version), the gateway that stored each
    // upload (NULL: a single gateway), the cohort of each round opened by a
    // coordinator with standbys, which they read to serve its task, and a
    // counter every revocation in the registry raises (one row), which the
    // gateways' revocation watch reads on PostgreSQL.
    R"sql(
ALTER TABLE rounds ADD COLUMN deadline_at INTEGER;
ALTER TABLE uploads ADD COLUMN gateway TEXT;
CREATE TABLE round_cohorts (
  job_id INTEGER NOT NULL,
  round_id INTEGER NOT NULL,
  device_id TEXT NOT NULL,
  PRIMARY KEY (job_id, round_id, device_id),
  FOREIGN KEY (job_id, round_id) REFERENCES rounds(job_id, round_id)
    ON DELETE CASCADE
);
CREATE TABLE registry_changes (
  id INTEGER NOT NULL PRIMARY KEY,
  version INTEGER NOT NULL
);
INSERT INTO registry_changes(id, version) VALUES (1, 0);
)sql",
    // Version 13: the open secure-aggregation round a restart resumes
    // (docs/aggregator.md, "A restart resumes a secure round"): its cohort
    // in SecAgg+ index order (identities joined by newlines), its public
    // rotation seed and, once charged before unmasking, the charged
    // survivors (NULL: not charged). A job keeps only its newest row.
    R"sql(
CREATE TABLE secure_rounds (
  job_id INTEGER NOT NULL,
  round_id INTEGER NOT NULL,
  cohort TEXT NOT NULL,
  rotation_seed BLOB NOT NULL,
  charged TEXT,
  PRIMARY KEY (job_id, round_id),
  FOREIGN KEY (job_id, round_id) REFERENCES rounds(job_id, round_id)
    ON DELETE CASCADE
);
)sql",
};

constexpr int kMigrationCount =
    static_cast<int>(sizeof(kMigrations) / sizeof(kMigrations[0]));
static_assert(kMigrationCount == kSchemaVersion,
              "one migration per schema version");

// float64le(x): the 8 little-endian bytes of the IEEE-754 double x (NULL
// for NULL), for the migrations' SQL.
void Float64Le(sqlite3_context* context, int /*argc*/, sqlite3_value** argv) {
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
    sqlite3_result_null(context);
    return;
  }
  const std::vector<uint8_t> bytes =
      EncodeDoubles({sqlite3_value_double(argv[0])});
  sqlite3_result_blob(context, bytes.data(), static_cast<int>(bytes.size()),
                      SQLITE_TRANSIENT);
}

Result<int> UserVersion(Database& db) {
  EDGEADMM_TRY_ASSIGN(Statement stmt, db.Prepare("PRAGMA user_version"));
  EDGEADMM_TRY(stmt.StepRow());
  return static_cast<int>(stmt.ColumnInt(0));
}

}  // namespace

Status MigrateSchema(Database& db) {
  EDGEADMM_TRY_ASSIGN(int version, UserVersion(db));
  if (version > kSchemaVersion) {
    EDGEADMM_LOG_ERROR("store: schema version %d is newer than this build (%d)",
                       version, kSchemaVersion);
    return Status::FailedPrecondition();
  }
  // On PostgreSQL the session has its own float64le (postgres_dialect.h).
  if (db.handle() != nullptr &&
      sqlite3_create_function(db.handle(), "float64le", 1,
                              SQLITE_UTF8 | SQLITE_DETERMINISTIC, nullptr,
                              Float64Le, nullptr, nullptr) != SQLITE_OK) {
    return Status::Internal();
  }
  while (version < kSchemaVersion) {
    EDGEADMM_TRY_ASSIGN(Transaction tx, Transaction::Begin(db));
    // Re-read inside the write lock: another process may have migrated.
    EDGEADMM_TRY_ASSIGN(version, UserVersion(db));
    if (version >= kSchemaVersion) break;
    EDGEADMM_TRY(db.Exec(kMigrations[version]));
    EDGEADMM_TRY(db.Exec("PRAGMA user_version=" + std::to_string(version + 1)));
    EDGEADMM_TRY(tx.Commit());
    ++version;
  }
  return Status::Ok();
}

}  // namespace edgeadmm::store
