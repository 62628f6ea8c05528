#include "edgeadmm/server/task_notifier.h"

#include <utility>

namespace edgeadmm::server {

TaskNotifier::Due TaskNotifier::Take(
    const std::vector<rounds::RoundEngine*>& engines, int64_t now_ms) {
  Due due;
  bool changed_any = false;
  bool round_open = false;
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
    if (changed || heartbeat) due.jobs.push_back(name);
    hosted[name] = changed || heartbeat ? now : last->second;
    changed_any = changed_any || changed;
    round_open = round_open || engine->round_open();
  }
  for (const auto& [name, last] : notified_) {
    if (hosted.count(name) == 0) {  // unloaded
      due.jobs.push_back(name);
      changed_any = true;
    }
  }
  notified_ = std::move(hosted);
  due.task =
      changed_any || (heartbeat_ms_ > 0 && round_open &&
                      now_ms - task_notified_ms_ >= int64_t{heartbeat_ms_});
  if (due.task) task_notified_ms_ = now_ms;
  return due;
}

}  // namespace edgeadmm::server
