// The last few distributed discrete Gaussian choices (see
// ddg_choice_cache.h).
#include "edgeadmm/secure_aggregation/ddg_choice_cache.h"

#include <algorithm>

namespace edgeadmm::secure_aggregation {

// A field added to DdgGoal changes the choice: it must join SameDdgGoal, or
// the cache would answer a new goal with an old goal's parameters.
static_assert(sizeof(DdgGoal) == 88, "compare the new DdgGoal field below");

bool SameDdgGoal(const DdgGoal& a, const DdgGoal& b) {
  return a.epsilon == b.epsilon && a.delta == b.delta &&
         a.conversion == b.conversion && a.rounds == b.rounds &&
         a.cohort == b.cohort && a.colluders == b.colluders &&
         a.dropouts == b.dropouts && a.dimension == b.dimension &&
         a.clip == b.clip && a.max_bits == b.max_bits &&
         a.log2_wrap == b.log2_wrap && a.beta == b.beta &&
         a.mse_slack == b.mse_slack;
}

std::optional<DdgParameters> DdgChoiceCache::Find(const DdgGoal& goal) const {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& [cached, chosen] : entries_) {
    if (SameDdgGoal(cached, goal)) return chosen;
  }
  return std::nullopt;
}

void DdgChoiceCache::Insert(const DdgGoal& goal, const DdgParameters& chosen) {
  std::lock_guard<std::mutex> lock(mutex_);
  entries_.erase(
      std::remove_if(entries_.begin(), entries_.end(),
                     [&](const auto& e) { return SameDdgGoal(e.first, goal); }),
      entries_.end());
  if (capacity_ == 0) return;
  if (entries_.size() == capacity_) entries_.pop_front();
  entries_.emplace_back(goal, chosen);
}

}  // namespace edgeadmm::secure_aggregation
