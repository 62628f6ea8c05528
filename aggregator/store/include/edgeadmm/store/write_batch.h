// WriteBatch: the Transactions begun on an SQLite connection while a batch
// is open run as savepoints of one SQLite transaction, which the first of
// them begins and Commit() ends: a loop pass that accepts dozens of uploads
// takes the write lock, appends to the WAL and commits once, instead of
// once per upload (docs/security.md, "Write batches").
//
// Each Transaction keeps its meaning inside the batch: its Commit() makes
// its writes part of the batch, its rollback (destruction before Commit)
// undoes only its own writes. What changes is when the writes become
// visible to other connections and when they can be lost: at the batch's
// Commit(). If that COMMIT fails, or SQLite rolled the whole transaction
// back after an I/O error or a full disk (sqlite.org/lang_transaction.html,
// "Response To Errors Within A Transaction"), every Transaction committed
// into the batch is gone: Commit() says DATA_LOSS, and a caller whose
// in-memory state followed those writes must not go on with it (the daemon
// stops; its restart reloads the state from the store).
//
// On PostgreSQL, or on a connection already inside a transaction, the batch
// does not open (open() is false) and Transactions run as before.
#pragma once

#include <cstdint>

#include "edgeadmm/status.h"
#include "edgeadmm/store/database.h"

namespace edgeadmm::store {

class WriteBatch {
 public:
  explicit WriteBatch(Database& db);
  // Rolls back what was not committed (an error path: the caller did not
  // call Commit()) and closes the batch.
  ~WriteBatch();
  WriteBatch(const WriteBatch&) = delete;
  WriteBatch& operator=(const WriteBatch&) = delete;

  bool open() const { return open_; }

  // Commits the Transactions committed into the batch so far; the batch
  // stays open, and the next Transaction begins a new SQLite transaction.
  // OK if there was nothing to commit (or the batch is not open).
  // FAILED_PRECONDITION while a Transaction is open in it (nothing done);
  // DATA_LOSS if the batch's writes are gone (from then on, until the batch
  // closes, Transactions fail to begin with DATA_LOSS too).
  Status Commit();

  // Transactions committed into the batch, and made part of the store by
  // Commit(), since the last call; resets the count.
  uint64_t TakeCommitted();

 private:
  Database* db_;
  bool open_ = false;
  WriteBatchState state_;
  uint64_t committed_ = 0;  // by Commit(), not yet taken
};

// Transaction's side of an open batch (transaction.cc; `batch` is
// db.write_batch()). Begins a savepoint, and the batch's transaction first
// if needed: DATA_LOSS if the batch was lost, else the statement's error.
Status BeginInBatch(Database& db, WriteBatchState& batch);
// Releases the savepoint into the batch.
Status ReleaseInBatch(Database& db, WriteBatchState& batch);
// Undoes the savepoint's writes (or notes that SQLite already rolled the
// whole batch back).
void RollBackInBatch(Database& db, WriteBatchState& batch);

}  // namespace edgeadmm::store
