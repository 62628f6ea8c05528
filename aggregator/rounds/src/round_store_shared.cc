// RoundStore: the SQL of rounds shared by a coordinator and its standbys
// (docs/aggregator.md, "Several gateways on one database"). The coordinator
// writes each round with its deadline and cohort; a standby reads them to
// serve the round's task and stores the uploads it accepts, conditionally
// on the round being open; the coordinator reads them back before it
// commits the round.
#include <optional>
#include <string>
#include <utility>

#include "edgeadmm/rounds/round_store.h"
#include "edgeadmm/store/transaction.h"

namespace edgeadmm::rounds {

Result<bool> RoundStore::InsertSharedOpenRound(
    int64_t round_id, int64_t started_at_ms, int64_t deadline_ms,
    const std::vector<const std::string*>& cohort) {
  EDGEADMM_TRY_ASSIGN(store::Transaction tx, store::Transaction::Begin(*db_));
  EDGEADMM_TRY_ASSIGN(
      const bool opened,
      InsertOpenRound(round_id, static_cast<int64_t>(cohort.size()),
                      started_at_ms, deadline_ms));
  if (!opened) return false;  // rolled back: nothing was written
  EDGEADMM_TRY_ASSIGN(
      store::CachedStatement member,
      db_->PrepareCached("INSERT INTO round_cohorts(job_id, round_id, "
                         "device_id) VALUES (?, ?, ?)"));
  for (const std::string* id : cohort) {
    EDGEADMM_TRY(member->Reset());
    member->Bind(1, job_id_).Bind(2, round_id).Bind(3, *id);
    EDGEADMM_TRY(member->Run());
  }
  EDGEADMM_TRY(tx.Commit());
  return true;
}

Result<std::optional<FollowedRound>> RoundStore::FollowedOpenRound() {
  std::optional<FollowedRound> round;
  {
    EDGEADMM_TRY_ASSIGN(
        store::CachedStatement open,
        db_->PrepareCached("SELECT round_id, coalesce(deadline_at, 0) FROM "
                           "rounds WHERE job_id = ? AND state = 'open' ORDER "
                           "BY round_id DESC LIMIT 1"));
    open->Bind(1, job_id_);
    EDGEADMM_TRY_ASSIGN(const bool found, open->Step());
    if (!found) return round;
    round.emplace();
    round->round_id = open->ColumnInt(0);
    round->deadline_ms = open->ColumnInt(1);
  }
  EDGEADMM_TRY_ASSIGN(
      store::CachedStatement members,
      db_->PrepareCached("SELECT device_id FROM round_cohorts WHERE job_id = "
                         "? AND round_id = ? ORDER BY device_id"));
  members->Bind(1, job_id_).Bind(2, round->round_id);
  for (;;) {
    EDGEADMM_TRY_ASSIGN(const bool row, members->Step());
    if (!row) break;
    round->cohort.push_back(members->ColumnText(0));
  }
  return round;
}

Result<SharedInsert> RoundStore::InsertSharedUpload(
    int64_t round_id, const LedgerRowRef& local, const UploadRowRef& upload,
    std::vector<uint8_t>* stored_fingerprint) {
  // Begin takes the database's write lock (BEGIN IMMEDIATE; on PostgreSQL
  // the transaction advisory lock): the coordinator's commit and every
  // other gateway's insert run before or after this one, never between its
  // check and its insert.
  EDGEADMM_TRY_ASSIGN(store::Transaction tx, store::Transaction::Begin(*db_));
  {
    EDGEADMM_TRY_ASSIGN(
        store::CachedStatement open,
        db_->PrepareCached("SELECT 1 FROM rounds WHERE job_id = ? AND "
                           "round_id = ? AND state = 'open'"));
    open->Bind(1, job_id_).Bind(2, round_id);
    EDGEADMM_TRY_ASSIGN(const bool is_open, open->Step());
    if (!is_open) return SharedInsert::kRoundClosed;
  }
  {
    EDGEADMM_TRY_ASSIGN(
        store::CachedStatement stored,
        db_->PrepareCached("SELECT fingerprint FROM uploads WHERE job_id = ? "
                           "AND round_id = ? AND device_id = ?"));
    stored->Bind(1, job_id_).Bind(2, round_id).Bind(3, *upload.device_id);
    EDGEADMM_TRY_ASSIGN(const bool exists, stored->Step());
    if (exists) {
      *stored_fingerprint = stored->ColumnIsNull(0) ? std::vector<uint8_t>()
                                                    : stored->ColumnBlob(0);
      return SharedInsert::kExists;
    }
  }
  EDGEADMM_TRY(InsertLedgerRow(round_id, local));
  EDGEADMM_TRY(InsertUploadRow(round_id, upload));
  EDGEADMM_TRY(tx.Commit());
  return SharedInsert::kInserted;
}

Result<int64_t> RoundStore::StoredUploadCount(int64_t round_id) {
  EDGEADMM_TRY_ASSIGN(
      store::CachedStatement count,
      db_->PrepareCached("SELECT count(*) FROM uploads WHERE job_id = ? AND "
                         "round_id = ?"));
  count->Bind(1, job_id_).Bind(2, round_id);
  EDGEADMM_TRY(count->StepRow());
  return count->ColumnInt(0);
}

Status RoundStore::ForEachUploadFromOthers(
    int64_t round_id, const std::string& gateway,
    const std::function<Status(StoredUpload row)>& upload) {
  EDGEADMM_TRY_ASSIGN(
      store::Statement stmt,
      db_->Prepare("SELECT device_id, payload, fingerprint FROM uploads "
                   "WHERE job_id = ? AND round_id = ? AND (gateway IS NULL "
                   "OR gateway <> ?) ORDER BY device_id"));
  stmt.Bind(1, job_id_).Bind(2, round_id).Bind(3, gateway);
  return stmt.ForEachRow([&]() -> Status {
    StoredUpload row;
    row.device_id = stmt.ColumnText(0);
    row.payload = stmt.ColumnBlob(1);
    if (!stmt.ColumnIsNull(2)) row.fingerprint_digest = stmt.ColumnBlob(2);
    return upload(std::move(row));
  });
}

}  // namespace edgeadmm::rounds
