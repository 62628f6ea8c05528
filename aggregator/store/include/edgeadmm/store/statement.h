// Statement: one prepared statement with typed bind and column access, on
// SQLite or on PostgreSQL (Database::Open picks the backend).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "edgeadmm/result.h"
#include "edgeadmm/status.h"

struct sqlite3_stmt;

namespace edgeadmm::store {

class PgStatement;

class Statement {
 public:
  explicit Statement(sqlite3_stmt* stmt);
  explicit Statement(std::unique_ptr<PgStatement> pg);
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  // Binds parameter `index` (1-based). Chainable; a bind error surfaces at
  // the next Step()/Run() as INTERNAL.
  Statement& Bind(int index, int64_t value);
  Statement& Bind(int index, double value);
  Statement& Bind(int index, std::string_view text);
  Statement& Bind(int index, const char* text) {
    return Bind(index, std::string_view(text));
  }
  Statement& BindBlob(int index, const std::vector<uint8_t>& bytes);
  // Binds `values` as a BLOB of store::EncodeDoubles(values); on
  // little-endian hosts straight from memory, without a buffer of its own.
  Statement& BindDoubles(int index, const std::vector<double>& values);
  Statement& BindNull(int index);

  // Advances: true when a row is available, false when done. INTERNAL on an
  // SQL error, UNAVAILABLE when the database stays busy, ALREADY_EXISTS on a
  // constraint violation.
  Result<bool> Step();
  // Steps to completion (for statements without rows); same codes as Step.
  Status Run();
  // Steps once and expects a row: NOT_FOUND when there is none.
  Status StepRow();
  // Steps through every row and calls `on_row()` (a callable returning
  // Status that reads the columns) for each; stops at the first error.
  template <typename OnRow>
  Status ForEachRow(OnRow&& on_row) {
    for (;;) {
      EDGEADMM_TRY_ASSIGN(const bool row, Step());
      if (!row) return Status::Ok();
      EDGEADMM_TRY(on_row());
    }
  }

  // Resets the statement for another execution and clears its bindings.
  // The status of the last step (OK if it succeeded).
  Status Reset();

  int64_t ColumnInt(int column) const;
  double ColumnDouble(int column) const;
  std::string ColumnText(int column) const;
  std::vector<uint8_t> ColumnBlob(int column) const;
  bool ColumnIsNull(int column) const;

  // The SQLite statement; null on PostgreSQL.
  sqlite3_stmt* handle() const { return stmt_; }

 private:
  sqlite3_stmt* stmt_;
  std::unique_ptr<PgStatement> pg_;  // set instead of stmt_ on PostgreSQL
  bool bind_failed_ = false;
};

}  // namespace edgeadmm::store
