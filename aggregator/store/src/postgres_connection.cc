#include <libpq-fe.h>

#include <cstdlib>
#include <cstring>

#include "edgeadmm/log.h"
#include "edgeadmm/store/postgres_dialect.h"
#include "postgres_backend.h"

namespace edgeadmm::store {
namespace {

// The session: every commit waits for its WAL flush (an acknowledged upload
// is durable), a writer waits at most 5 s for the write lock (SQLite's busy
// timeout), and the dialect's helper functions live in the session's
// temporary schema (postgres_dialect.h).
constexpr const char* kSessionSetup = R"sql(
SET synchronous_commit = on;
SET lock_timeout = '5s';
SET client_min_messages = warning;
CREATE FUNCTION pg_temp.hex(b bytea) RETURNS text LANGUAGE sql IMMUTABLE
  AS $$ SELECT upper(encode(b, 'hex')) $$;
CREATE FUNCTION pg_temp.float64le(x double precision) RETURNS bytea
  LANGUAGE sql IMMUTABLE AS $$
  SELECT string_agg(substr(float8send(x), 9 - i, 1), ''::bytea ORDER BY i)
  FROM generate_series(1, 8) AS i WHERE x IS NOT NULL $$;
)sql";

// The schema version, stored as SQLite's PRAGMA user_version is: one
// integer, 0 for an empty database.
constexpr const char* kVersionRow = R"sql(
BEGIN IMMEDIATE;
CREATE TABLE IF NOT EXISTS edgeadmm_schema_version (version INTEGER NOT NULL);
INSERT INTO edgeadmm_schema_version
  SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM edgeadmm_schema_version);
COMMIT;
)sql";

}  // namespace

Status StatusFromPostgres(const PGresult* result) {
  const char* state = result != nullptr
                          ? PQresultErrorField(result, PG_DIAG_SQLSTATE)
                          : nullptr;
  if (state == nullptr) return Status::Unavailable();  // no answer: connection
  if (std::strncmp(state, "23", 2) == 0) return Status::AlreadyExists();
  if (std::strncmp(state, "08", 2) == 0 || std::strcmp(state, "55P03") == 0 ||
      std::strcmp(state, "40001") == 0 || std::strcmp(state, "40P01") == 0 ||
      std::strcmp(state, "57P01") == 0) {
    return Status::Unavailable();
  }
  return Status::Internal();
}

Result<std::unique_ptr<PgConnection>> PgConnection::Connect(
    const std::string& conninfo) {
  PGconn* raw = PQconnectdb(conninfo.c_str());
  std::unique_ptr<PgConnection> connection(new PgConnection(raw));
  if (raw == nullptr || PQstatus(raw) != CONNECTION_OK) {
    // libpq's message names host, port or socket and user, never the
    // password.
    EDGEADMM_LOG_ERROR("store: cannot connect to PostgreSQL: %s",
                       raw ? PQerrorMessage(raw) : "out of memory");
    return Status::Unavailable();
  }
  PGresult* setup = PQexec(raw, kSessionSetup);  // PostgreSQL already
  const Status set_up = connection->Check(setup);
  PQclear(setup);
  EDGEADMM_TRY(set_up);
  EDGEADMM_TRY(connection->Exec(kVersionRow));
  return connection;
}

PgConnection::~PgConnection() { PQfinish(conn_); }

Status PgConnection::Check(PGresult* result) {
  const ExecStatusType status =
      result != nullptr ? PQresultStatus(result) : PGRES_FATAL_ERROR;
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) {
    // INSERT, UPDATE and DELETE report their rows; SQLite's changes() keeps
    // its value across other statements.
    const char* command = PQcmdStatus(result);
    if (std::strncmp(command, "INSERT", 6) == 0 ||
        std::strncmp(command, "UPDATE", 6) == 0 ||
        std::strncmp(command, "DELETE", 6) == 0) {
      changes_ = std::strtoll(PQcmdTuples(result), nullptr, 10);
    }
    return Status::Ok();
  }
  const char* message =
      result != nullptr ? PQresultErrorMessage(result) : PQerrorMessage(conn_);
  last_error_ = message;
  while (!last_error_.empty() && last_error_.back() == '\n') {
    last_error_.pop_back();
  }
  for (char& c : last_error_) c = c == '\n' ? ' ' : c;
  EDGEADMM_LOG_ERROR("store: %s", last_error_.c_str());
  return StatusFromPostgres(result);
}

Status PgConnection::Exec(std::string_view sql) {
  const std::string text = TranslateToPostgres(sql);
  PGresult* result = PQexec(conn_, text.c_str());
  const Status status = Check(result);
  PQclear(result);
  return status;
}

Result<std::unique_ptr<PgStatement>> PgConnection::Prepare(
    std::string_view sql) {
  int parameters = 0;
  std::string text = TranslateToPostgres(sql, &parameters);
  // Parsed once here so that an error in the SQL surfaces at Prepare, as on
  // SQLite; what only the parameters' types (given at Step) decide is not
  // an error yet: an indeterminate type, an ambiguous or unknown operator.
  PGresult* result = PQprepare(conn_, "", text.c_str(), 0, nullptr);
  const char* state = PQresultErrorField(result, PG_DIAG_SQLSTATE);
  const bool untyped = state != nullptr && (std::strcmp(state, "42P18") == 0 ||
                                            std::strcmp(state, "42725") == 0 ||
                                            std::strcmp(state, "42883") == 0);
  const Status status = untyped ? Status::Ok() : Check(result);
  PQclear(result);
  EDGEADMM_TRY(status);
  return std::make_unique<PgStatement>(this, std::move(text), parameters);
}

int64_t PgConnection::LastInsertId() {
  PGresult* result = PQexec(conn_, "SELECT lastval()");
  int64_t id = 0;
  if (Check(result).ok() && PQntuples(result) == 1) {
    id = std::strtoll(PQgetvalue(result, 0, 0), nullptr, 10);
  }
  PQclear(result);
  return id;
}

bool PgConnection::InTransaction() const {
  return PQtransactionStatus(conn_) != PQTRANS_IDLE;
}

}  // namespace edgeadmm::store
