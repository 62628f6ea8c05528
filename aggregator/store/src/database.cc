#include "edgeadmm/store/database.h"

#include <sqlite3.h>

#include <cstdlib>

#include "edgeadmm/log.h"
#include "edgeadmm/store/owner_only_files.h"
#include "edgeadmm/store/schema.h"
#include "postgres_backend.h"

namespace edgeadmm::store {
namespace {
// How long a writer waits for another connection's lock (the CLI and the
// daemon share the file).
constexpr int kBusyTimeoutMs = 5000;
}  // namespace

void Database::Closer::operator()(sqlite3* db) const { sqlite3_close_v2(db); }

Status StatusFromSqlite(int rc) {
  switch (rc & 0xff) {
    case SQLITE_OK:
      return Status::Ok();
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return Status::Unavailable();
    case SQLITE_CONSTRAINT:
      return Status::AlreadyExists();
    case SQLITE_CANTOPEN:
      return Status::Unavailable();
    default:
      return Status::Internal();
  }
}

bool IsPostgresTarget(std::string_view target) {
  return target.rfind("postgresql://", 0) == 0 ||
         target.rfind("postgres://", 0) == 0;
}

std::string RedactTarget(std::string_view target) {
  std::string out(target);
  const size_t scheme = out.find("://");
  if (IsPostgresTarget(out) && scheme != std::string::npos) {
    const size_t start = scheme + 3;
    const size_t end = out.find_first_of("/?", start);
    const size_t at =
        out.rfind('@', end == std::string::npos ? out.size() : end);
    if (at != std::string::npos && at > start) {
      const size_t colon = out.find(':', start);
      if (colon != std::string::npos && colon < at) {
        out.replace(colon + 1, at - colon - 1, "***");
      }
    }
  }
  for (size_t key = out.find("password="); key != std::string::npos;
       key = out.find("password=", key + 1)) {
    const size_t value = key + 9;
    size_t end = value;
    if (end < out.size() && out[end] == '\'') {
      end = out.find('\'', end + 1);
      end = end == std::string::npos ? out.size() : end + 1;
    } else {
      end = out.find_first_of("& \t", value);
      if (end == std::string::npos) end = out.size();
    }
    out.replace(value, end - value, "***");
  }
  return out;
}

Database::Database(sqlite3* db)
    : db_(db), cache_(std::make_unique<StatementCache>()) {}
Database::Database(std::unique_ptr<PgConnection> pg)
    : pg_(std::move(pg)), cache_(std::make_unique<StatementCache>()) {}
Database::Database(Database&&) noexcept = default;
Database& Database::operator=(Database&&) noexcept = default;
Database::~Database() = default;

Result<Database> Database::OpenPostgres(const std::string& conninfo) {
  EDGEADMM_TRY_ASSIGN(std::unique_ptr<PgConnection> pg,
                      PgConnection::Connect(conninfo));
  Database db(std::move(pg));
  EDGEADMM_TRY(MigrateSchema(db));
  return db;
}

Result<Database> Database::Open(const std::string& path) {
  if (IsPostgresTarget(path)) return OpenPostgres(path);
  EDGEADMM_TRY(PrepareOwnerOnlyDatabase(path));
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(
      path.c_str(), &raw,
      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
      nullptr);
  Database db(raw);
  if (rc != SQLITE_OK) {
    EDGEADMM_LOG_ERROR("store: cannot open %s: %s", path.c_str(),
                       raw ? sqlite3_errmsg(raw) : "out of memory");
    return Status::Unavailable();
  }
  sqlite3_busy_timeout(raw, kBusyTimeoutMs);
  EDGEADMM_TRY(
      db.Exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; "
              "PRAGMA foreign_keys=ON;"));
  EDGEADMM_TRY(MigrateSchema(db));
  return db;
}

Status Database::Exec(std::string_view sql) {
  if (pg_) return pg_->Exec(sql);
  const std::string text(sql);
  char* message = nullptr;
  const int rc =
      sqlite3_exec(db_.get(), text.c_str(), nullptr, nullptr, &message);
  if (rc != SQLITE_OK) {
    kept_error_ = message ? message : "exec failed";
    EDGEADMM_LOG_ERROR("store: %s", kept_error_.c_str());
    sqlite3_free(message);
    return StatusFromSqlite(rc);
  }
  return Status::Ok();
}

Result<Statement> Database::Prepare(std::string_view sql) {
  if (pg_) {
    EDGEADMM_TRY_ASSIGN(std::unique_ptr<PgStatement> pg, pg_->Prepare(sql));
    return Statement(std::move(pg));
  }
  sqlite3_stmt* stmt = nullptr;
  const int rc = sqlite3_prepare_v2(
      db_.get(), sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
  if (rc != SQLITE_OK) {
    EDGEADMM_LOG_ERROR("store: prepare failed: %s", sqlite3_errmsg(db_.get()));
    sqlite3_finalize(stmt);
    return StatusFromSqlite(rc);
  }
  return Statement(stmt);
}

int64_t Database::LastInsertId() const {
  if (pg_) return pg_->LastInsertId();
  return sqlite3_last_insert_rowid(db_.get());
}

int64_t Database::Changes() const {
  if (pg_) return pg_->changes();
  return sqlite3_changes(db_.get());
}

bool Database::InTransaction() const {
  if (pg_) return pg_->InTransaction();
  return sqlite3_get_autocommit(db_.get()) == 0;
}

std::string Database::LastError() const {
  if (pg_) return pg_->LastError();
  if (sqlite3_errcode(db_.get()) == SQLITE_OK && !kept_error_.empty()) {
    return kept_error_;
  }
  return sqlite3_errmsg(db_.get());
}

void Database::KeepError() {
  if (pg_) return;  // PgConnection keeps the message of every failure
  if (sqlite3_errcode(db_.get()) != SQLITE_OK) {
    kept_error_ = sqlite3_errmsg(db_.get());
  }
}

DatabaseChoice ChooseDatabasePath(std::string_view flag,
                                  std::string_view config) {
  if (!flag.empty()) return {std::string(flag), "--db"};
  const char* env = std::getenv("EDGEADMM_DB");
  if (env != nullptr && env[0] != '\0') return {env, "EDGEADMM_DB"};
  if (!config.empty()) return {std::string(config), "config"};
  return {"/var/lib/edgeadmm/aggregator.db", "default"};
}

std::string DefaultDatabasePath() { return ChooseDatabasePath("", "").path; }

}  // namespace edgeadmm::store
