// StatementCache: prepared statements kept for reuse, keyed by their SQL.
//
// sqlite3_prepare_v2 parses and plans the SQL on every call; for the
// statements run per upload and per round (registry lookup, round commit)
// that was 17 % of the aggregator's instructions (docs/aggregator.md,
// "Benchmark"). A statement goes back to the cache reset, with its bindings
// cleared, so it holds no lock while idle; SQLite re-prepares a v2 statement
// by itself when the schema changed, so cached statements survive migrations.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "edgeadmm/store/statement.h"

namespace edgeadmm::store {

class StatementCache;

// A lease on a statement: used like a Statement; when the lease ends the
// statement is reset and returned to its cache (or finalized if it has none).
// Must not outlive the Database it came from.
class CachedStatement {
 public:
  CachedStatement(CachedStatement&& other) noexcept;
  CachedStatement& operator=(CachedStatement&&) = delete;
  CachedStatement(const CachedStatement&) = delete;
  CachedStatement& operator=(const CachedStatement&) = delete;
  ~CachedStatement();

  Statement& operator*() { return statement_; }
  Statement* operator->() { return &statement_; }

 private:
  friend class StatementCache;
  using IdleList = std::vector<Statement>;
  CachedStatement(IdleList* home, Statement statement)
      : home_(home), statement_(std::move(statement)) {}
  IdleList* home_;  // null: not cached, finalized at the end of the lease
  Statement statement_;
};

class StatementCache {
 public:
  // Distinct SQL texts kept (the aggregator has a few dozen constant ones);
  // statements for further texts are prepared per use.
  static constexpr size_t kMaxTexts = 64;
  // Idle statements kept per text (more only when leases of one text nest).
  static constexpr size_t kMaxIdlePerText = 4;

  // A lease on an idle statement for `sql` if there is one, else on
  // `prepare()` (a callable returning Result<Statement>), which the lease
  // returns to the cache when it ends.
  template <typename Prepare>
  Result<CachedStatement> Acquire(std::string_view sql, Prepare&& prepare) {
    CachedStatement::IdleList* home = Home(sql);
    if (home != nullptr && !home->empty()) {
      CachedStatement lease(home, std::move(home->back()));
      home->pop_back();
      return lease;
    }
    EDGEADMM_TRY_ASSIGN(Statement statement, prepare());
    ++prepared_;
    return CachedStatement(home, std::move(statement));
  }

  // How many statements Acquire prepared (the rest were reused).
  size_t prepared() const { return prepared_; }

 private:
  // The idle list of `sql`, created if there is room; null if the cache is
  // full.
  CachedStatement::IdleList* Home(std::string_view sql);

  // std::less<> finds by string_view without building a string; map nodes
  // keep the idle lists at stable addresses for the leases.
  std::map<std::string, CachedStatement::IdleList, std::less<>> idle_;
  size_t prepared_ = 0;
};

}  // namespace edgeadmm::store
