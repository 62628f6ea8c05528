// The PostgreSQL backend of the store (libpq): a connection and a statement
// with the operations store::Database and store::Statement forward to when
// they were opened on a PostgreSQL connection string. Private to the store.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "edgeadmm/result.h"
#include "edgeadmm/status.h"

// libpq's handles (libpq-fe.h: PGconn, PGresult), declared here so that
// the store also builds without libpq (postgres_absent.cc).
struct pg_conn;
struct pg_result;

namespace edgeadmm::store {

class PgStatement;

class PgConnection {
 public:
  // Connects with `conninfo` (a postgresql:// URI or a libpq keyword
  // string), sets the session up (synchronous commit, lock timeout, the
  // helper functions of the dialect) and creates the schema version row if
  // the database has none. UNAVAILABLE if the server cannot be reached.
  static Result<std::unique_ptr<PgConnection>> Connect(
      const std::string& conninfo);
  ~PgConnection();

  // Runs one or more statements (SQLite dialect, translated) without
  // parameters.
  Status Exec(std::string_view sql);
  Result<std::unique_ptr<PgStatement>> Prepare(std::string_view sql);
  int64_t LastInsertId();
  bool InTransaction() const;
  const std::string& LastError() const { return last_error_; }
  // Rows changed by the last INSERT, UPDATE or DELETE.
  int64_t changes() const { return changes_; }

  // The status of a finished command; keeps and logs the message of a
  // failure.
  Status Check(pg_result* result);
  pg_conn* conn() const { return conn_; }

 private:
  explicit PgConnection(pg_conn* conn) : conn_(conn) {}
  pg_conn* conn_;
  std::string last_error_;
  int64_t changes_ = 0;
};

class PgStatement {
 public:
  PgStatement(PgConnection* connection, std::string sql, int parameters)
      : connection_(connection),
        sql_(std::move(sql)),
        params_(static_cast<size_t>(parameters)) {}
  ~PgStatement();

  bool BindInt(int index, int64_t value);
  bool BindDouble(int index, double value);
  bool BindText(int index, std::string_view text);
  bool BindBytes(int index, const void* data, size_t size);
  bool BindNull(int index);

  Result<bool> Step();
  Status Reset();

  int64_t ColumnInt(int column) const;
  double ColumnDouble(int column) const;
  std::string ColumnText(int column) const;
  std::vector<uint8_t> ColumnBlob(int column) const;
  bool ColumnIsNull(int column) const;

 private:
  struct Param {
    unsigned type = 0;  // Oid; 0: the server infers it
    std::string value;
    bool binary = false;
    bool null = true;
  };
  Param* At(int index);
  Status Execute();
  const char* Cell(int column) const;

  PgConnection* connection_;
  std::string sql_;
  std::vector<Param> params_;
  pg_result* result_ = nullptr;
  int row_ = -1;  // the current row of result_
  Status last_ = Status::Ok();
};

// Maps a failed libpq result to a Status: integrity violations (SQLSTATE
// class 23) -> ALREADY_EXISTS, lock timeouts, serialization failures,
// deadlocks and lost connections -> UNAVAILABLE, others -> INTERNAL.
Status StatusFromPostgres(const pg_result* result);

}  // namespace edgeadmm::store
