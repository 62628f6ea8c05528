// Transaction: BEGIN IMMEDIATE ... COMMIT, rolled back unless committed.
// Inside an open WriteBatch (write_batch.h) it is a savepoint of the
// batch's transaction instead: its Commit() hands its writes to the batch,
// and its rollback undoes only them.
#pragma once

#include "edgeadmm/result.h"
#include "edgeadmm/store/database.h"

namespace edgeadmm::store {

class Transaction {
 public:
  // Begins a write transaction. UNAVAILABLE when another writer holds the
  // database past the busy timeout; DATA_LOSS if the open batch's writes
  // were lost; INTERNAL otherwise.
  static Result<Transaction> Begin(Database& db);

  Transaction(Transaction&& other) noexcept
      : db_(other.db_), batch_(other.batch_) {
    other.db_ = nullptr;
  }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  Transaction& operator=(Transaction&&) = delete;
  // Rolls back if neither Commit() succeeded nor the transaction was moved.
  ~Transaction();

  // Commits; after an error the transaction is rolled back. INTERNAL or
  // UNAVAILABLE on failure.
  Status Commit();

 private:
  Transaction(Database* db, WriteBatchState* batch) : db_(db), batch_(batch) {}
  Database* db_;
  WriteBatchState* batch_;  // the batch it is a savepoint of, or null
};

}  // namespace edgeadmm::store
