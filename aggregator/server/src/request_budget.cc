#include "edgeadmm/server/request_budget.h"

#include <algorithm>
#include <cmath>

namespace edgeadmm::server {

RequestBudget::Bucket& RequestBudget::Refilled(std::string_view identity,
                                               int64_t now_ms) {
  auto [it, added] = buckets_.try_emplace(std::string(identity));
  Bucket& b = it->second;
  if (added) {
    b.tokens = options_.burst;
  } else if (now_ms > b.updated_ms) {
    const double earned =
        static_cast<double>(now_ms - b.updated_ms) / 1000.0 *
        options_.requests_per_second;
    b.tokens = std::min(options_.burst, b.tokens + earned);
  }
  b.updated_ms = std::max(b.updated_ms, now_ms);
  return b;
}

int RequestBudget::Take(std::string_view identity, int64_t now_ms) {
  if (options_.requests_per_second <= 0) return 0;
  Bucket& b = Refilled(identity, now_ms);
  if (b.tokens >= 1.0) {
    b.tokens -= 1.0;
    return 0;
  }
  const double wait_s = (1.0 - b.tokens) / options_.requests_per_second;
  return std::max(1, static_cast<int>(std::ceil(wait_s)));
}

void RequestBudget::Debit(std::string_view identity, int64_t now_ms) {
  if (options_.requests_per_second <= 0) return;
  Refilled(identity, now_ms).tokens -= 1.0;
}

void RequestBudget::Prune(int64_t now_ms) {
  if (now_ms - last_prune_ms_ < kPruneIntervalMs) return;
  last_prune_ms_ = now_ms;
  for (auto it = buckets_.begin(); it != buckets_.end();) {
    const Bucket& b = it->second;
    const double earned = static_cast<double>(now_ms - b.updated_ms) /
                          1000.0 * options_.requests_per_second;
    it = b.tokens + earned >= options_.burst ? buckets_.erase(it)
                                              : std::next(it);
  }
}

}  // namespace edgeadmm::server
