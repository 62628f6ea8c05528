// GroupCommit: many commits on one SQLite connection made durable by one
// fsync, so that a burst of small transactions (the uploads a loop pass
// accepts) pays one WAL sync instead of one each.
//
// While a GroupCommit is alive, the connection runs with synchronous=NORMAL:
// each commit is atomic and visible to other connections, and survives a
// crash of the process (its WAL frames are written), but not yet a power
// cut. Sync() then fsyncs the WAL once, which makes every commit since the
// GroupCommit began durable. Nothing that claims durability (a receipt) may
// leave before Sync() succeeds: the daemon holds its endpoints' datagrams
// until then (server/held_sends.h). The destructor restores
// synchronous=FULL (a later commit's own fsync covers earlier frames too).
//
// On PostgreSQL it is not armed: each commit is durable on its own
// (synchronous_commit = on).
#pragma once

#include <cstdint>

#include "edgeadmm/status.h"
#include "edgeadmm/store/database.h"

namespace edgeadmm::store {

class GroupCommit {
 public:
  // Arms on an SQLite `db` that is not inside a transaction. It may stay
  // armed for the connection's life (the daemon's does), Sync()ing after
  // each burst.
  explicit GroupCommit(Database& db);
  ~GroupCommit();
  GroupCommit(const GroupCommit&) = delete;
  GroupCommit& operator=(const GroupCommit&) = delete;

  // fsyncs the WAL if a commit happened since the last Sync (or since
  // construction). INTERNAL if the sync failed: the commits since are not
  // known to be durable, and nothing may claim they are.
  Status Sync();

  bool armed() const { return armed_; }
  // Commits since the last successful Sync (a transaction or a single
  // write): a failed Sync keeps them for the next.
  uint64_t pending() const { return pending_; }

 private:
  static int OnCommit(void* self);

  Database* db_;
  bool armed_ = false;
  uint64_t pending_ = 0;
};

}  // namespace edgeadmm::store
