// PollSchedule: which of a fleet's devices one pass of its event loop polls.
//
// A device is polled when its transport reported news (a response, a
// notification, a failure: CoapClientContext::TakeWoken), when a timer it
// asked for is due, or in the very next pass if it asked for that. The
// others cost nothing, so the loop's CPU follows the fleet's traffic rather
// than its size: with 2,000 devices waiting in a secure round's phase, a
// loop that polled every device in every pass (up to 50 passes a second)
// spent about a third of its CPU reading device objects that had nothing
// to do (docs/results.md, "Secure aggregation at 32,561 devices").
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

namespace edgeadmm::fleet {

class PollSchedule {
 public:
  // A schedule for devices 0 .. devices - 1, none of them due.
  explicit PollSchedule(size_t devices);

  // Device `index` is due in the next pass (and its timer is dropped).
  void Now(size_t index);
  // Device `index` is due at `at_ms`, replacing its earlier time (a time
  // already past: the next pass, which then does not wait for I/O); news
  // from its transport makes it due before.
  void At(size_t index, uint64_t at_ms);

  // The devices due in a pass at `now_ms`: those passed to Now() since the
  // last pass, those in `woken` (indices; out of range ones are ignored)
  // and those whose time is due, each once, in that order. The list is
  // valid until the next call.
  const std::vector<size_t>& Due(uint64_t now_ms,
                                 const std::vector<size_t>& woken);

  // How long a pass at `now_ms` may wait for I/O, at most `max_wait_ms`:
  // 0 if a device is due in the next pass, else until the first timer.
  uint32_t WaitMs(uint64_t now_ms, uint32_t max_wait_ms) const;

 private:
  static constexpr uint64_t kNone = UINT64_MAX;
  using Timer = std::pair<uint64_t, size_t>;  // (at_ms, device index)
  // Each device's current time (kNone: none); a heap entry whose time is
  // not its device's current one is stale and skipped.
  std::vector<uint64_t> at_ms_;
  std::vector<uint64_t> listed_pass_;  // the pass that last listed it
  uint64_t pass_ = 0;
  std::priority_queue<Timer, std::vector<Timer>, std::greater<Timer>> timers_;
  std::vector<size_t> next_pass_;
  std::vector<size_t> due_;
};

}  // namespace edgeadmm::fleet
