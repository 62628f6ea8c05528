#include "edgeadmm/server/task_notifier.h"

namespace edgeadmm::server {

bool TaskNotifier::Due(const std::vector<rounds::RoundEngine*>& engines,
                       int64_t now_ms) {
  std::vector<int64_t> now;
  bool round_open = false;
  for (const rounds::RoundEngine* engine : engines) {
    now.push_back(engine->job().id);
    now.push_back(engine->round_open() ? engine->round_id() : 0);
    now.push_back(static_cast<int64_t>(engine->job().state));
    round_open = round_open || engine->round_open();
  }
  if (now.empty()) return false;
  const bool heartbeat = heartbeat_ms_ > 0 && round_open &&
                         now_ms - notified_ms_ >= int64_t{heartbeat_ms_};
  if (now == notified_ && !heartbeat) return false;
  notified_ = std::move(now);
  notified_ms_ = now_ms;
  return true;
}

}  // namespace edgeadmm::server
