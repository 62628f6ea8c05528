#include "edgeadmm/fleet/poll_schedule.h"

namespace edgeadmm::fleet {

PollSchedule::PollSchedule(size_t devices)
    : at_ms_(devices, kNone), listed_pass_(devices, 0) {}

void PollSchedule::Now(size_t index) {
  if (index >= at_ms_.size()) return;
  at_ms_[index] = kNone;
  next_pass_.push_back(index);
}

void PollSchedule::At(size_t index, uint64_t at_ms) {
  if (index >= at_ms_.size()) return;
  at_ms_[index] = at_ms;
  timers_.emplace(at_ms, index);
}

const std::vector<size_t>& PollSchedule::Due(uint64_t now_ms,
                                             const std::vector<size_t>& woken) {
  ++pass_;
  due_.clear();
  const auto list = [this](size_t index) {
    if (index >= at_ms_.size() || listed_pass_[index] == pass_) return;
    listed_pass_[index] = pass_;
    due_.push_back(index);
  };
  for (size_t index : next_pass_) list(index);
  next_pass_.clear();
  for (size_t index : woken) list(index);
  while (!timers_.empty() && timers_.top().first <= now_ms) {
    const Timer timer = timers_.top();
    timers_.pop();
    if (at_ms_[timer.second] != timer.first) continue;  // stale
    at_ms_[timer.second] = kNone;
    list(timer.second);
  }
  return due_;
}

uint32_t PollSchedule::WaitMs(uint64_t now_ms, uint32_t max_wait_ms) const {
  if (!next_pass_.empty()) return 0;
  // Stale entries only make the wait shorter, never longer.
  if (timers_.empty() || timers_.top().first >= now_ms + max_wait_ms) {
    return max_wait_ms;
  }
  return timers_.top().first > now_ms
             ? static_cast<uint32_t>(timers_.top().first - now_ms)
             : 0;
}

}  // namespace edgeadmm::fleet
