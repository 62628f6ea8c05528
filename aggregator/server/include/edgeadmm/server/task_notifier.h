// TaskNotifier: when the observers of v1/task hear from the gateway.
//
// They are notified when a hosted job's open round, its id or its state
// changes, and, while a round is open, again every heartbeat even without
// a change (docs/aggregator.md, "Task heartbeat"). A device that hears
// nothing for its refresh interval registers again on a new DTLS session
// (docs/device.md, "Refresh interval"): without the heartbeat every device
// that had uploaded, or was not in the cohort, did so while a round of
// 10,000 waited for its last uploads, a handshake per device per interval.
// The heartbeat also repairs a lost non-confirmable notification.
#pragma once

#include <cstdint>
#include <vector>

#include "edgeadmm/rounds/round_engine.h"

namespace edgeadmm::server {

class TaskNotifier {
 public:
  // heartbeat_ms = 0: notify on changes only.
  explicit TaskNotifier(uint32_t heartbeat_ms) : heartbeat_ms_(heartbeat_ms) {}

  // Whether to notify the observers now (then it counts as done).
  bool Due(const std::vector<rounds::RoundEngine*>& engines, int64_t now_ms);

 private:
  uint32_t heartbeat_ms_;
  // (job, open round, state) of each hosted job at the last notification.
  std::vector<int64_t> notified_;
  int64_t notified_ms_ = 0;
};

}  // namespace edgeadmm::server
