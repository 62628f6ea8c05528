// Transaction: BEGIN IMMEDIATE ... COMMIT, rolled back unless committed.
#pragma once

#include "edgeadmm/result.h"
#include "edgeadmm/store/database.h"

namespace edgeadmm::store {

class Transaction {
 public:
  // Begins a write transaction. UNAVAILABLE when another writer holds the
  // database past the busy timeout; INTERNAL otherwise.
  static Result<Transaction> Begin(Database& db);

  Transaction(Transaction&& other) noexcept : db_(other.db_) {
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
  explicit Transaction(Database* db) : db_(db) {}
  Database* db_;
};

}  // namespace edgeadmm::store
