#include "edgeadmm/store/write_batch.h"

#include "edgeadmm/log.h"

namespace edgeadmm::store {
namespace {
// One name serves every level: ROLLBACK TO and RELEASE act on the newest
// savepoint of that name, which is the innermost open Transaction's.
constexpr const char* kSavepoint = "SAVEPOINT edgeadmm_batched";
constexpr const char* kRelease = "RELEASE edgeadmm_batched";
constexpr const char* kRollBack =
    "ROLLBACK TO edgeadmm_batched; RELEASE edgeadmm_batched";

// The batch's transaction began and SQLite no longer has it: it was rolled
// back under us.
bool Vanished(const Database& db, const WriteBatchState& batch) {
  return batch.began && !db.InTransaction();
}
}  // namespace

WriteBatch::WriteBatch(Database& db) : db_(&db) {
  if (db.postgresql() || db.InTransaction() || db.write_batch() != nullptr) {
    return;
  }
  db.set_write_batch(&state_);
  open_ = true;
}

WriteBatch::~WriteBatch() {
  if (!open_) return;
  if (state_.began && db_->InTransaction()) {
    EDGEADMM_LOG_ERROR("store: a write batch closed uncommitted: rolled back");
    db_->Exec("ROLLBACK").IgnoreError();
  }
  db_->set_write_batch(nullptr);
}

Status WriteBatch::Commit() {
  if (!open_) return Status::Ok();
  if (state_.savepoints > 0) return Status::FailedPrecondition();
  if (state_.lost || Vanished(*db_, state_)) {
    state_.lost = true;
    return Status::DataLoss();
  }
  if (!state_.began) return Status::Ok();
  if (!db_->Exec("COMMIT").ok()) {
    db_->KeepError();
    EDGEADMM_LOG_ERROR(
        "store: a write batch of %llu transactions did not "
        "commit: %s",
        static_cast<unsigned long long>(state_.transactions),
        db_->LastError().c_str());
    if (db_->InTransaction()) db_->Exec("ROLLBACK").IgnoreError();
    state_.lost = true;
    return Status::DataLoss();
  }
  state_.began = false;
  committed_ += state_.transactions;
  state_.transactions = 0;
  return Status::Ok();
}

uint64_t WriteBatch::TakeCommitted() {
  const uint64_t n = committed_;
  committed_ = 0;
  return n;
}

Status BeginInBatch(Database& db, WriteBatchState& batch) {
  if (batch.lost || Vanished(db, batch)) {
    batch.lost = true;
    return Status::DataLoss();
  }
  if (!batch.began) {
    EDGEADMM_TRY(db.Exec("BEGIN IMMEDIATE"));
    batch.began = true;
  }
  const Status status = db.Exec(kSavepoint);
  if (!status.ok()) {
    if (Vanished(db, batch)) batch.lost = true;
    return status;
  }
  ++batch.savepoints;
  return Status::Ok();
}

Status ReleaseInBatch(Database& db, WriteBatchState& batch) {
  EDGEADMM_TRY(db.Exec(kRelease));
  --batch.savepoints;
  ++batch.transactions;
  return Status::Ok();
}

void RollBackInBatch(Database& db, WriteBatchState& batch) {
  --batch.savepoints;
  if (Vanished(db, batch) || !db.Exec(kRollBack).ok()) batch.lost = true;
}

}  // namespace edgeadmm::store
