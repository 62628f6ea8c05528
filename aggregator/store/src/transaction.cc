#include "edgeadmm/store/transaction.h"

#include "edgeadmm/store/write_batch.h"

namespace edgeadmm::store {

Result<Transaction> Transaction::Begin(Database& db) {
  if (WriteBatchState* batch = db.write_batch()) {
    EDGEADMM_TRY(BeginInBatch(db, *batch));
    return Transaction(&db, batch);
  }
  const Status status = db.Exec("BEGIN IMMEDIATE");
  if (!status.ok()) {
    // On PostgreSQL the BEGIN may have run and the write lock timed out:
    // the session would refuse every later statement until a ROLLBACK.
    if (db.InTransaction()) db.Exec("ROLLBACK").IgnoreError();
    return status;
  }
  return Transaction(&db, nullptr);
}

Transaction::~Transaction() {
  // After SQLITE_FULL, an I/O error or a failed COMMIT, SQLite may already
  // have rolled the transaction back itself (sqlite.org/lang_transaction.html,
  // "Response To Errors Within A Transaction"): a second ROLLBACK would only
  // log "cannot rollback - no transaction is active".
  if (db_ == nullptr) return;
  db_->KeepError();  // for the caller's log line, after the ROLLBACK
  if (batch_ != nullptr) {
    RollBackInBatch(*db_, *batch_);
    return;
  }
  if (db_->InTransaction()) {
    db_->Exec("ROLLBACK").IgnoreError();
  }
}

Status Transaction::Commit() {
  if (db_ == nullptr) return Status::FailedPrecondition();
  Database* db = db_;
  const Status status =
      batch_ != nullptr ? ReleaseInBatch(*db, *batch_) : db->Exec("COMMIT");
  if (status.ok()) db_ = nullptr;
  return status;
}

}  // namespace edgeadmm::store
