#include "edgeadmm/store/transaction.h"

namespace edgeadmm::store {

Result<Transaction> Transaction::Begin(Database& db) {
  EDGEADMM_TRY(db.Exec("BEGIN IMMEDIATE"));
  return Transaction(&db);
}

Transaction::~Transaction() {
  if (db_ != nullptr) db_->Exec("ROLLBACK").IgnoreError();
}

Status Transaction::Commit() {
  if (db_ == nullptr) return Status::FailedPrecondition();
  Database* db = db_;
  const Status status = db->Exec("COMMIT");
  if (status.ok()) db_ = nullptr;
  return status;
}

}  // namespace edgeadmm::store
