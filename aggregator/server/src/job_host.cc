#include "edgeadmm/server/job_host.h"

#include <time.h>

#include <cerrno>
#include <iterator>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "edgeadmm/jobs/job_store.h"
#include "edgeadmm/log.h"

namespace edgeadmm::server {

Status JobHost::PickUpRunningJob(int64_t now_ms) {
  last_pickup_ms_ = now_ms;
  // States first: a job's config is parsed only when it may be loaded.
  EDGEADMM_TRY_ASSIGN(const std::vector<jobs::JobStateRow> all,
                      jobs::ListJobStates(*db_));
  std::set<int64_t> running;
  bool picked = false;
  for (const jobs::JobStateRow& row : all) {
    if (row.state != jobs::JobState::kRunning) continue;
    running.insert(row.id);
    if (!MayPickUp(row.id)) continue;
    EDGEADMM_TRY_ASSIGN(const jobs::JobRecord job, jobs::LoadJob(*db_, row.id));
    EDGEADMM_TRY_ASSIGN(const bool loaded, PickUp(job));
    picked = picked || loaded;
  }
  if (!picked) return Status::Ok();
  // A new job came: the stopped ones' engines go.
  for (auto it = hosted_.begin(); it != hosted_.end();) {
    it = running.count(it->first) != 0 ? std::next(it) : hosted_.erase(it);
  }
  Reroute();
  return Status::Ok();
}

bool JobHost::MayPickUp(int64_t id) const {
  const auto it = hosted_.find(id);
  if (it == hosted_.end()) return true;
  // A standby's engine follows the coordinator: it asks for the lease at
  // every pick-up, to take over when the coordinator is gone.
  // A loaded engine whose job stopped and runs again is reloaded.
  const rounds::RoundEngine& engine = *it->second.engine;
  return engine.role() == rounds::RoundEngine::Role::kFollower ||
         engine.job().state != jobs::JobState::kRunning;
}

Result<bool> JobHost::PickUp(const jobs::JobRecord& job) {
  if (!MayPickUp(job.id)) return false;
  const auto it = hosted_.find(job.id);
  const bool loaded = it != hosted_.end();
  EDGEADMM_TRY_ASSIGN(const bool coordinator, TakeLease(job));
  const bool shared = lease_ != nullptr && db_->postgresql() &&
                      rounds::RoundEngine::CanFollow(job.config);
  if (coordinator) {
    EDGEADMM_TRY(Serve(job, shared ? rounds::RoundEngine::Role::kCoordinator
                                   : rounds::RoundEngine::Role::kSole));
    return true;
  }
  if (loaded || !shared) return false;
  EDGEADMM_TRY(Serve(job, rounds::RoundEngine::Role::kFollower));
  return true;
}

std::vector<rounds::RoundEngine*> JobHost::engines() const {
  std::vector<rounds::RoundEngine*> all;
  all.reserve(hosted_.size());
  for (const auto& [id, hosted] : hosted_) all.push_back(hosted.engine.get());
  return all;
}

void JobHost::Reroute() { handler_->router().Set(engines()); }

Status JobHost::Serve(const jobs::JobRecord& job,
                      rounds::RoundEngine::Role role) {
  using Role = rounds::RoundEngine::Role;
  if (hosted_.erase(job.id) != 0) Reroute();
  Hosted hosted;
  EDGEADMM_TRY_ASSIGN(
      hosted.engine,
      role == Role::kSole
          ? rounds::RoundEngine::Open(*db_, job.id, accountant_)
          : rounds::RoundEngine::OpenShared(*db_, job.id, accountant_, role,
                                            lease_->gateway_id()));
  rounds::RoundEngine& engine = *hosted.engine;
  // The round's commit runs in Tick, after the last receipt went out.
  engine.set_close_in_advance(true);
  engine.set_lifetime_reservations(&reservations_);
  if (role != Role::kFollower && !job.config.validation_data.empty()) {
    auto validator = rounds::Validator::Load(job.config);
    if (validator.ok()) {
      hosted.validator =
          std::make_unique<rounds::Validator>(std::move(validator).value());
      engine.set_validator(hosted.validator.get());
    } else {
      // Metrics are optional: train without them, but say why (and that
      // no best model is kept: export then needs --round last or N).
      EDGEADMM_LOG_WARN("server: no validation metrics%s: %s",
                        job.config.selects_on_validation()
                            ? " and no best-model selection or early stop"
                            : "",
                        validator.error().message().c_str());
    }
  }
  EDGEADMM_LOG_INFO("server: serving job %s (n = %lld, iteration %lld)%s",
                    job.config.name.c_str(), static_cast<long long>(job.n),
                    static_cast<long long>(engine.iteration()),
                    role == Role::kFollower
                        ? " as a standby: its uploads go to the store for "
                          "the coordinator's rounds"
                        : "");
  hosted_.emplace(job.id, std::move(hosted));
  Reroute();
  return Status::Ok();
}

Result<bool> JobHost::TakeLease(const jobs::JobRecord& job) {
  if (lease_ == nullptr) return true;
  EDGEADMM_TRY_ASSIGN(const bool held, lease_->Acquire(job.id));
  if (held) {
    EDGEADMM_LOG_INFO("server: gateway %s coordinates job %s",
                      lease_->gateway_id().c_str(), job.config.name.c_str());
    return true;
  }
  if (standby_job_ != job.id) {
    standby_job_ = job.id;
    const Result<std::string> holder = lease_->Holder(job.id);
    EDGEADMM_LOG_INFO(
        "server: gateway %s stands by for job %s (coordinator: gateway %s)",
        lease_->gateway_id().c_str(), job.config.name.c_str(),
        holder.ok() ? holder->c_str() : "unknown");
  }
  return false;
}

void JobHost::Tick(int64_t now_ms) {
  if (now_ms - last_pickup_ms_ >= 1000) {
    const Status picked = PickUpRunningJob(now_ms);
    if (!picked.ok()) {
      EDGEADMM_LOG_ERROR(
          "server: cannot load the running jobs (%s: %s); "
          "retry in 1 s",
          picked.str(), db_->LastError().c_str());
    }
  }
  for (auto& [id, hosted] : hosted_) AdvanceJob(hosted, now_ms);
}

void JobHost::AdvanceJob(Hosted& hosted, int64_t now_ms) {
  rounds::RoundEngine& engine = *hosted.engine;
  // The engine tick reads the job state from the store: at most every 10 ms,
  // not after every datagram; at once when a round's cohort is complete
  // (its commit waits here, after the receipts, not in the last request).
  if (engine.role() == rounds::RoundEngine::Role::kFollower) {
    // Reads the store at most every RoundEngine::kFollowMs; no round of
    // its own to count or hold.
    engine.Advance(now_ms).IgnoreError();
    return;
  }
  if (now_ms - hosted.last_advance_ms >= 10 || engine.round_complete()) {
    hosted.last_advance_ms = now_ms;
    const int64_t iteration_before = engine.iteration();
    const int64_t completed_ms =
        engine.round_complete() ? engine.completed_ms() : 0;
    // Logged by the engine, which retries it.
    engine.Advance(now_ms).IgnoreError();
    if (completed_ms != 0 && engine.iteration() > iteration_before) {
      committed_complete_ms_.push_back(completed_ms);
    }
    ObserveRound(hosted, iteration_before, now_ms);
  }
}

void JobHost::CountCommitDelays(int64_t now_ms) {
  if (metrics_ != nullptr) {
    for (const int64_t completed_ms : committed_complete_ms_) {
      metrics_->CountCommitDelay(static_cast<double>(now_ms - completed_ms) /
                                 1e3);
    }
  }
  committed_complete_ms_.clear();
}

void JobHost::ObserveRound(Hosted& hosted, int64_t iteration_before,
                           int64_t now_ms) {
  const rounds::RoundEngine& engine = *hosted.engine;
  const int64_t open_id = engine.round_open() ? engine.round_id() : 0;
  if (open_id == hosted.seen_round_id) return;
  // The round seen open before is over: committed if the iteration moved.
  if (hosted.seen_round_id != 0 && metrics_ != nullptr) {
    const bool committed = engine.iteration() > iteration_before;
    metrics_->CountRound(
        committed,
        static_cast<double>(now_ms - hosted.seen_round_opened_ms) / 1e3);
  }
  const int64_t ended_deadline_ms = hosted.seen_round_deadline_ms;
  const bool ended = hosted.seen_round_id != 0;
  hosted.seen_round_id = open_id;
  hosted.seen_round_opened_ms = now_ms;
  hosted.seen_round_deadline_ms = open_id != 0 ? engine.deadline_ms() : 0;
  if (ended && release_delay_ms_ > 0 &&
      engine.job().config.policy == privacy::Policy::kTrustedAggregator) {
    HoldRelease(engine, ended_deadline_ms);
  }
}

void JobHost::HoldRelease(const rounds::RoundEngine& engine,
                          int64_t deadline_ms) {
  const int64_t release_ms = deadline_ms + release_delay_ms_;
  const int64_t late_ms = clock_.now_ms() - release_ms;
  if (late_ms > 0) {
    // The close itself took longer than the hold: this release's time
    // depends on the work, i.e. on the cohort's size.
    if (metrics_ != nullptr) metrics_->CountReleaseHold(true);
    EDGEADMM_LOG_WARN(
        "server: job %s: a round's release came %lld ms after its deadline + "
        "release_delay_ms (%lld): its timing is not padded (raise "
        "server.release_delay_ms)",
        engine.job().config.name.c_str(), static_cast<long long>(late_ms),
        static_cast<long long>(release_delay_ms_));
    return;
  }
  if (metrics_ != nullptr) metrics_->CountReleaseHold(false);
  clock_.sleep_ms(-late_ms);
}

int64_t WallClockMs() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1'000'000;
}

JobHost::Clock JobHost::RealClock() {
  Clock clock;
  clock.now_ms = WallClockMs;
  clock.sleep_ms = [](int64_t ms) {
    timespec left{static_cast<time_t>(ms / 1000),
                  static_cast<long>((ms % 1000) * 1'000'000)};
    while (nanosleep(&left, &left) != 0 && errno == EINTR) {
    }
  };
  return clock;
}

JobGauges JobHost::Gauges() const {
  const std::vector<JobGauges> all = AllGauges();
  return all.empty() ? JobGauges{} : all.front();
}

std::vector<JobGauges> JobHost::AllGauges() const {
  std::vector<JobGauges> all;
  for (const auto& [id, hosted] : hosted_) {
    const rounds::RoundEngine* engine = hosted.engine.get();
    const jobs::JobConfig& config = engine->job().config;
    JobGauges g;
    g.has_job = true;
    g.name = config.name;
    g.iteration = engine->iteration();
    g.rounds = config.rounds;
    g.central_epsilon = engine->central_epsilon();
    g.delta = config.delta;
    g.accountant =
        config.accountant == jobs::CentralAccountant::kPld ? "pld" : "rdp";
    g.round_open = engine->round_open();
    all.push_back(std::move(g));
  }
  return all;
}

}  // namespace edgeadmm::server
