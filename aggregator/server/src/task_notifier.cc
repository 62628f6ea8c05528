#include "edgeadmm/server/task_notifier.h"

#include <utility>

namespace edgeadmm::server {

std::vector<std::string> TaskNotifier::Due(
    const std::vector<rounds::RoundEngine*>& engines, int64_t now_ms) {
  std::vector<std::string> due;
  std::map<std::string, Notified> hosted;
  for (const rounds::RoundEngine* engine : engines) {
    const std::string& name = engine->job().config.name;
    const Notified now{engine->job().id,
                       engine->round_open() ? engine->round_id() : 0,
                       static_cast<int64_t>(engine->job().state), now_ms};
    const auto last = notified_.find(name);
    const bool changed = last == notified_.end() ||
                         last->second.job_id != now.job_id ||
                         last->second.round_id != now.round_id ||
                         last->second.state != now.state;
    const bool heartbeat =
        !changed && heartbeat_ms_ > 0 && engine->round_open() &&
        now_ms - last->second.at_ms >= int64_t{heartbeat_ms_};
    if (changed || heartbeat) {
      due.push_back(name);
      hosted[name] = now;
    } else {
      hosted[name] = last->second;
    }
  }
  for (const auto& [name, last] : notified_) {
    if (hosted.count(name) == 0) due.push_back(name);  // unloaded
  }
  notified_ = std::move(hosted);
  return due;
}

}  // namespace edgeadmm::server
