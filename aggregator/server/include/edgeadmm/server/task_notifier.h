// TaskNotifier: when the observers of a job's task hear from the gateway.
//
// A job's observers are notified when its open round, that round's id or
// the job's state changes, when the job is loaded or unloaded, and, while
// its round is open, again every heartbeat even without a change
// (docs/aggregator.md, "Task heartbeat"). A device that hears nothing for
// its refresh interval registers again on a new DTLS session
// (docs/device.md, "Refresh interval"): without the heartbeat every device
// that had uploaded, or was not in the cohort, did so while a round of
// 10,000 waited for its last uploads, a handshake per device per interval.
// The heartbeat also repairs a lost non-confirmable notification. Each job
// is judged on its own, so a round of one job does not notify the devices
// that observe another job's task (v1/task/<name>); v1/task's observers
// hear every job's changes and one heartbeat per period.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "edgeadmm/rounds/round_engine.h"

namespace edgeadmm::server {

class TaskNotifier {
 public:
  // heartbeat_ms = 0: notify on changes only.
  explicit TaskNotifier(uint32_t heartbeat_ms) : heartbeat_ms_(heartbeat_ms) {}

  // Whom to notify now (then it counts as done).
  struct Due {
    // The observers of v1/task (they hear every job): when any job is due
    // for a change, or, while a round is open, every heartbeat.
    bool task = false;
    // The names of the jobs whose own task's observers are due: among
    // `engines` (the hosted jobs), and those hosted at the last call but
    // not now.
    std::vector<std::string> jobs;
  };
  Due Take(const std::vector<rounds::RoundEngine*>& engines, int64_t now_ms);

 private:
  struct Notified {
    int64_t job_id = 0;
    int64_t round_id = 0;  // the open round's, 0 if none
    int64_t state = 0;
    int64_t at_ms = 0;
  };
  uint32_t heartbeat_ms_;
  // Each hosted job by name, as at its last notification.
  std::map<std::string, Notified> notified_;
  int64_t task_notified_ms_ = 0;  // v1/task's last notification
};

}  // namespace edgeadmm::server
