// The last few answers of ChooseDdgParameters (ddg_parameters.h), by goal.
// The choice is a pure function of its goal but costs about 10^4
// accountant evaluations (a fifth of a second on an x86 gateway, seconds on
// an ARM board), and the daemon asks it again for every secure round it
// starts and charges. A hit returns the same parameters the search would
// find. Thread-safe; holds at most `capacity` goals and drops the oldest.
// Host code.
#pragma once

#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <utility>

#include "edgeadmm/secure_aggregation/ddg_parameters.h"

namespace edgeadmm::secure_aggregation {

// True when every field of the two goals is equal (so a NaN never matches).
bool SameDdgGoal(const DdgGoal& a, const DdgGoal& b);

class DdgChoiceCache {
 public:
  explicit DdgChoiceCache(size_t capacity) : capacity_(capacity) {}

  std::optional<DdgParameters> Find(const DdgGoal& goal) const;
  // Remembers `chosen` for `goal` (replacing an equal goal's answer).
  void Insert(const DdgGoal& goal, const DdgParameters& chosen);

 private:
  const size_t capacity_;
  mutable std::mutex mutex_;
  std::deque<std::pair<DdgGoal, DdgParameters>> entries_;  // oldest first
};

}  // namespace edgeadmm::secure_aggregation
