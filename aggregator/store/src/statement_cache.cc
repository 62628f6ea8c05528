#include "edgeadmm/store/statement_cache.h"

namespace edgeadmm::store {

CachedStatement::CachedStatement(CachedStatement&& other) noexcept
    : home_(other.home_), statement_(std::move(other.statement_)) {
  other.home_ = nullptr;
}

CachedStatement::~CachedStatement() {
  if (home_ == nullptr || home_->size() >= StatementCache::kMaxIdlePerText) {
    return;  // ~Statement finalizes it
  }
  // Reset releases the statement's read or write lock at once, as finalizing
  // did; the status of its last step was already reported to the caller.
  statement_.Reset().IgnoreError();
  home_->push_back(std::move(statement_));
}

CachedStatement::IdleList* StatementCache::Home(std::string_view sql) {
  auto it = idle_.find(sql);
  if (it != idle_.end()) return &it->second;
  if (idle_.size() >= kMaxTexts) return nullptr;
  return &idle_.emplace(std::string(sql), CachedStatement::IdleList())
              .first->second;
}

}  // namespace edgeadmm::store
