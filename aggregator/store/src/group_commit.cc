#include "edgeadmm/store/group_commit.h"

#include <sqlite3.h>

#include <string_view>

#include "edgeadmm/log.h"

namespace edgeadmm::store {

namespace {

// Runs a constant PRAGMA through the statement cache: the daemon does this
// twice per loop pass, so it must not parse or allocate each time.
Status RunPragma(Database& db, std::string_view sql) {
  EDGEADMM_TRY_ASSIGN(CachedStatement pragma, db.PrepareCached(sql));
  return pragma->Run();
}

}  // namespace

GroupCommit::GroupCommit(Database& db, uint64_t carried_commits)
    : db_(&db), pending_(carried_commits) {
  if (db.postgresql() || db.InTransaction()) return;
  if (!RunPragma(db, "PRAGMA synchronous=NORMAL").ok()) return;
  sqlite3_commit_hook(db.handle(), &GroupCommit::OnCommit, this);
  armed_ = true;
}

GroupCommit::~GroupCommit() {
  if (!armed_) return;
  sqlite3_commit_hook(db_->handle(), nullptr, nullptr);
  if (!RunPragma(*db_, "PRAGMA synchronous=FULL").ok()) {
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
