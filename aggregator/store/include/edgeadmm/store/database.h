// Database: a connection with the aggregator schema, to an SQLite file in WAL
// mode (the embedded default) or to a PostgreSQL database (several gateways'
// shared store; docs/aggregator.md, "PostgreSQL backend"). Callers write one
// SQL dialect, SQLite's; the PostgreSQL backend translates it
// (postgres_dialect.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "edgeadmm/result.h"
#include "edgeadmm/status.h"
#include "edgeadmm/store/statement.h"
#include "edgeadmm/store/statement_cache.h"

struct sqlite3;

namespace edgeadmm::store {

class PgConnection;

// The bookkeeping of an open WriteBatch (write_batch.h) on a connection.
struct WriteBatchState {
  bool began = false;  // its BEGIN IMMEDIATE ran and no COMMIT since
  bool lost = false;   // its writes are gone (rolled back by SQLite, or a
                       // failed COMMIT)
  int savepoints = 0;  // Transactions open in it
  uint64_t transactions = 0;  // Transactions committed into it, not yet
                              // committed by the batch
};

// True if `target` names a PostgreSQL database (postgresql:// or
// postgres:// URI) rather than an SQLite file.
bool IsPostgresTarget(std::string_view target);

// `target` (a file or a PostgreSQL URI or keyword string) for logs: a
// password in it (user:password@ in a URI, password= as a key) shows as ***.
std::string RedactTarget(std::string_view target);

class Database {
 public:
  // Opens (creating if needed, owner-only: owner_only_files.h) the database
  // at `path`, switches it to WAL with synchronous=FULL and foreign keys,
  // and migrates the schema to the newest version. UNAVAILABLE if the file
  // cannot be opened; FAILED_PRECONDITION if its schema is newer than this
  // build; INTERNAL on SQL errors. A PostgreSQL URI (IsPostgresTarget) opens
  // OpenPostgres instead.
  static Result<Database> Open(const std::string& path);
  // Connects to PostgreSQL with `conninfo` (a URI or a libpq keyword
  // string) and migrates the schema as Open does. UNAVAILABLE if the server
  // cannot be reached.
  static Result<Database> OpenPostgres(const std::string& conninfo);

  Database(Database&&) noexcept;
  Database& operator=(Database&&) noexcept;
  ~Database();

  // Runs one or more SQL statements without results. INTERNAL on error.
  Status Exec(std::string_view sql);
  // Prepares one statement. INTERNAL on a syntax error.
  Result<Statement> Prepare(std::string_view sql);
  // Like Prepare, but reuses a statement prepared earlier for the same SQL
  // (StatementCache): for constant SQL run per request or per round. The
  // lease must end before the Database does.
  Result<CachedStatement> PrepareCached(std::string_view sql) {
    return cache_->Acquire(sql, [&] { return Prepare(sql); });
  }
  // The statement cache behind PrepareCached (tests).
  const StatementCache& statement_cache() const { return *cache_; }
  // Rowid (PostgreSQL: identity value) of the last insert on this
  // connection.
  int64_t LastInsertId() const;
  // Rows changed by the last INSERT, UPDATE or DELETE on this connection.
  int64_t Changes() const;
  // True inside BEGIN ... COMMIT (also after a failed statement in it).
  bool InTransaction() const;
  // True on the PostgreSQL backend.
  bool postgresql() const { return pg_ != nullptr; }
  // The SQLite message of the last error (for logs); after a transaction
  // that failed and was rolled back, the message of its failure.
  std::string LastError() const;
  // Keeps the message of the current error for LastError (the ROLLBACK that
  // follows a failure clears SQLite's own).
  void KeepError();
  // The open WriteBatch's state, or null: while set, a Transaction is a
  // savepoint of the batch's transaction (write_batch.h).
  WriteBatchState* write_batch() const { return batch_; }
  void set_write_batch(WriteBatchState* batch) { batch_ = batch; }
  // The SQLite connection; null on PostgreSQL.
  sqlite3* handle() const { return db_.get(); }

 private:
  struct Closer {
    void operator()(sqlite3* db) const;
  };
  explicit Database(sqlite3* db);
  explicit Database(std::unique_ptr<PgConnection> pg);
  std::unique_ptr<sqlite3, Closer> db_;
  std::unique_ptr<PgConnection> pg_;  // set instead of db_ on PostgreSQL
  // Declared after db_: its statements are finalized before the connection
  // closes. Behind a pointer so that leases survive a move of the Database.
  std::unique_ptr<StatementCache> cache_;
  std::string kept_error_;  // KeepError
  WriteBatchState* batch_ = nullptr;
};

// Maps an SQLite result code to a Status (BUSY/LOCKED -> UNAVAILABLE,
// CONSTRAINT -> ALREADY_EXISTS, others -> INTERNAL).
Status StatusFromSqlite(int rc);

// The database file a binary opens and where its name came from, in the
// order every binary follows: the command line's --db (`flag`), then
// $EDGEADMM_DB, then the config file (`config`, the daemon's
// [store] database), then /var/lib/edgeadmm/aggregator.db. An empty
// `flag` or `config` means "not given". `source` is one of "--db",
// "EDGEADMM_DB", "config" or "default".
struct DatabaseChoice {
  std::string path;
  const char* source = "default";
};
DatabaseChoice ChooseDatabasePath(std::string_view flag,
                                  std::string_view config);

// ChooseDatabasePath("", "").path: what the CLI uses when --db is absent.
std::string DefaultDatabasePath();

}  // namespace edgeadmm::store
