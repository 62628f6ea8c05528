#include "edgeadmm/store/statement.h"

#include <sqlite3.h>

#include "edgeadmm/store/blob.h"
#include "edgeadmm/store/database.h"
#include "postgres_backend.h"

namespace edgeadmm::store {

Statement::Statement(sqlite3_stmt* stmt) : stmt_(stmt) {}

Statement::Statement(std::unique_ptr<PgStatement> pg)
    : stmt_(nullptr), pg_(std::move(pg)) {}

Statement::Statement(Statement&& other) noexcept
    : stmt_(other.stmt_),
      pg_(std::move(other.pg_)),
      bind_failed_(other.bind_failed_) {
  other.stmt_ = nullptr;
}

Statement& Statement::operator=(Statement&& other) noexcept {
  if (this != &other) {
    sqlite3_finalize(stmt_);
    stmt_ = other.stmt_;
    pg_ = std::move(other.pg_);
    bind_failed_ = other.bind_failed_;
    other.stmt_ = nullptr;
  }
  return *this;
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

Statement& Statement::Bind(int index, int64_t value) {
  if (pg_) {
    bind_failed_ |= !pg_->BindInt(index, value);
    return *this;
  }
  bind_failed_ |= sqlite3_bind_int64(stmt_, index, value) != SQLITE_OK;
  return *this;
}

Statement& Statement::Bind(int index, double value) {
  if (pg_) {
    bind_failed_ |= !pg_->BindDouble(index, value);
    return *this;
  }
  bind_failed_ |= sqlite3_bind_double(stmt_, index, value) != SQLITE_OK;
  return *this;
}

Statement& Statement::Bind(int index, std::string_view text) {
  if (pg_) {
    bind_failed_ |= !pg_->BindText(index, text);
    return *this;
  }
  bind_failed_ |= sqlite3_bind_text(stmt_, index, text.data(),
                                    static_cast<int>(text.size()),
                                    SQLITE_TRANSIENT) != SQLITE_OK;
  return *this;
}

Statement& Statement::BindBlob(int index, const std::vector<uint8_t>& bytes) {
  if (pg_) {
    bind_failed_ |= !pg_->BindBytes(index, bytes.data(), bytes.size());
    return *this;
  }
  bind_failed_ |= sqlite3_bind_blob(stmt_, index, bytes.data(),
                                    static_cast<int>(bytes.size()),
                                    SQLITE_TRANSIENT) != SQLITE_OK;
  return *this;
}

Statement& Statement::BindDoubles(int index,
                                  const std::vector<double>& values) {
  if constexpr (!kHostIsLittleEndian) {
    return BindBlob(index, EncodeDoubles(values));
  }
  if (pg_) {
    bind_failed_ |=
        !pg_->BindBytes(index, values.data(), values.size() * sizeof(double));
    return *this;
  }
  // SQLITE_TRANSIENT: SQLite copies the bytes now, so `values` may change or
  // go away before the statement runs.
  bind_failed_ |=
      sqlite3_bind_blob(stmt_, index, values.data(),
                        static_cast<int>(values.size() * sizeof(double)),
                        SQLITE_TRANSIENT) != SQLITE_OK;
  return *this;
}

Statement& Statement::BindNull(int index) {
  if (pg_) {
    bind_failed_ |= !pg_->BindNull(index);
    return *this;
  }
  bind_failed_ |= sqlite3_bind_null(stmt_, index) != SQLITE_OK;
  return *this;
}

Result<bool> Statement::Step() {
  if (bind_failed_) return Status::Internal();
  if (pg_) return pg_->Step();
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return StatusFromSqlite(rc);
}

Status Statement::Run() {
  return ForEachRow([] { return Status::Ok(); });
}

Status Statement::StepRow() {
  EDGEADMM_TRY_ASSIGN(const bool row, Step());
  return row ? Status::Ok() : Status::NotFound();
}

Status Statement::Reset() {
  if (pg_) {
    bind_failed_ = false;
    return pg_->Reset();
  }
  const int rc = sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
  bind_failed_ = false;
  return StatusFromSqlite(rc);
}

int64_t Statement::ColumnInt(int column) const {
  if (pg_) return pg_->ColumnInt(column);
  return sqlite3_column_int64(stmt_, column);
}

double Statement::ColumnDouble(int column) const {
  if (pg_) return pg_->ColumnDouble(column);
  return sqlite3_column_double(stmt_, column);
}

std::string Statement::ColumnText(int column) const {
  if (pg_) return pg_->ColumnText(column);
  const unsigned char* text = sqlite3_column_text(stmt_, column);
  if (text == nullptr) return std::string();
  return std::string(reinterpret_cast<const char*>(text),
                     static_cast<size_t>(sqlite3_column_bytes(stmt_, column)));
}

std::vector<uint8_t> Statement::ColumnBlob(int column) const {
  if (pg_) return pg_->ColumnBlob(column);
  const auto* data =
      static_cast<const uint8_t*>(sqlite3_column_blob(stmt_, column));
  const int size = sqlite3_column_bytes(stmt_, column);
  if (data == nullptr || size <= 0) return {};
  return std::vector<uint8_t>(data, data + size);
}

bool Statement::ColumnIsNull(int column) const {
  if (pg_) return pg_->ColumnIsNull(column);
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

}  // namespace edgeadmm::store
