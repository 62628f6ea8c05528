#include "edgeadmm/store/group_commit.h"

#include <sqlite3.h>

#include "edgeadmm/log.h"

namespace edgeadmm::store {

GroupCommit::GroupCommit(Database& db) : db_(&db) {
  if (db.postgresql() || db.InTransaction()) return;
  if (!db.Exec("PRAGMA synchronous=NORMAL").ok()) return;
  sqlite3_commit_hook(db.handle(), &GroupCommit::OnCommit, this);
  armed_ = true;
}

GroupCommit::~GroupCommit() {
  if (!armed_) return;
  sqlite3_commit_hook(db_->handle(), nullptr, nullptr);
  if (!db_->Exec("PRAGMA synchronous=FULL").ok()) {
    EDGEADMM_LOG_ERROR("store: cannot restore synchronous=FULL");
  }
}

int GroupCommit::OnCommit(void* self) {
  ++static_cast<GroupCommit*>(self)->pending_;
  return 0;  // let the commit go on
}

Status GroupCommit::Sync() {
  if (!armed_ || pending_ == 0) return Status::Ok();
  // The WAL's file as SQLite's pager holds it (through the process's VFS).
  sqlite3_file* wal = nullptr;
  const int found = sqlite3_file_control(db_->handle(), "main",
                                         SQLITE_FCNTL_JOURNAL_POINTER, &wal);
  if (found != SQLITE_OK || wal == nullptr || wal->pMethods == nullptr) {
    EDGEADMM_LOG_ERROR("store: no WAL file to sync after %llu commits",
                       static_cast<unsigned long long>(pending_));
    return Status::Internal();
  }
  const int rc = wal->pMethods->xSync(wal, SQLITE_SYNC_NORMAL);
  if (rc != SQLITE_OK) {
    EDGEADMM_LOG_ERROR("store: WAL sync after %llu commits failed: %s",
                       static_cast<unsigned long long>(pending_),
                       sqlite3_errstr(rc));
    return Status::Internal();
  }
  pending_ = 0;
  return Status::Ok();
}

}  // namespace edgeadmm::store
