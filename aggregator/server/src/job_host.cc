#include "edgeadmm/server/job_host.h"

#include <time.h>

#include <cerrno>
#include <string>
#include <utility>
#include <vector>

#include "edgeadmm/jobs/job_store.h"
#include "edgeadmm/log.h"

namespace edgeadmm::server {

Status JobHost::PickUpRunningJob(int64_t now_ms) {
  last_pickup_ms_ = now_ms;
  // A standby's engine follows the coordinator: it asks for the lease at
  // every pick-up, to take over when the coordinator is gone.
  const bool following =
      engine_ != nullptr &&
      engine_->role() == rounds::RoundEngine::Role::kFollower;
  if (engine_ != nullptr && !following &&
      engine_->job().state == jobs::JobState::kRunning) {
    return Status::Ok();
  }
  EDGEADMM_TRY_ASSIGN(const std::vector<jobs::JobRecord> all,
                      jobs::ListJobs(*db_));
  for (const jobs::JobRecord& job : all) {
    if (job.state != jobs::JobState::kRunning) continue;
    const bool loaded = engine_ != nullptr && engine_->job().id == job.id;
    if (loaded && !following) return Status::Ok();
    EDGEADMM_TRY_ASSIGN(const bool coordinator, TakeLease(job));
    const bool shared = lease_ != nullptr && db_->postgresql() &&
                        rounds::RoundEngine::CanFollow(job.config);
    if (coordinator) {
      return Serve(job, shared ? rounds::RoundEngine::Role::kCoordinator
                               : rounds::RoundEngine::Role::kSole);
    }
    if (loaded || !shared) return Status::Ok();
    return Serve(job, rounds::RoundEngine::Role::kFollower);
  }
  return Status::Ok();
}

Status JobHost::Serve(const jobs::JobRecord& job,
                      rounds::RoundEngine::Role role) {
  using Role = rounds::RoundEngine::Role;
  handler_->set_engine(nullptr);
  engine_.reset();
  EDGEADMM_TRY_ASSIGN(
      engine_,
      role == Role::kSole
          ? rounds::RoundEngine::Open(*db_, job.id, accountant_)
          : rounds::RoundEngine::OpenShared(*db_, job.id, accountant_, role,
                                            lease_->gateway_id()));
  // The round's commit runs in Tick, after the last receipt went out.
  engine_->set_close_in_advance(true);
  seen_round_id_ = 0;  // rounds of another job are not this one's
  handler_->set_engine(engine_.get());
  validator_.reset();
  if (role != Role::kFollower && !job.config.validation_data.empty()) {
    auto validator = rounds::Validator::Load(job.config);
    if (validator.ok()) {
      validator_ =
          std::make_unique<rounds::Validator>(std::move(validator).value());
      engine_->set_validator(validator_.get());
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
                    static_cast<long long>(engine_->iteration()),
                    role == Role::kFollower
                        ? " as a standby: its uploads go to the store for "
                          "the coordinator's rounds"
                        : "");
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
          "server: cannot load the running job (%s: %s); "
          "retry in 1 s",
          picked.str(), db_->LastError().c_str());
    }
  }
  // The engine tick reads the job state from the store: at most every 10 ms,
  // not after every datagram; at once when a round's cohort is complete
  // (its commit waits here, after the receipts, not in the last request).
  if (engine_ != nullptr &&
      engine_->role() == rounds::RoundEngine::Role::kFollower) {
    // Reads the store at most every RoundEngine::kFollowMs; no round of
    // its own to count or hold.
    engine_->Advance(now_ms).IgnoreError();
    return;
  }
  if (engine_ != nullptr &&
      (now_ms - last_advance_ms_ >= 10 || engine_->round_complete())) {
    last_advance_ms_ = now_ms;
    const int64_t iteration_before = engine_->iteration();
    // Logged by the engine, which retries it.
    engine_->Advance(now_ms).IgnoreError();
    ObserveRound(iteration_before, now_ms);
  }
}

void JobHost::ObserveRound(int64_t iteration_before, int64_t now_ms) {
  const int64_t open_id = engine_->round_open() ? engine_->round_id() : 0;
  if (open_id == seen_round_id_) return;
  // The round seen open before is over: committed if the iteration moved.
  if (seen_round_id_ != 0 && metrics_ != nullptr) {
    const bool committed = engine_->iteration() > iteration_before;
    metrics_->CountRound(
        committed, static_cast<double>(now_ms - seen_round_opened_ms_) / 1e3);
  }
  const int64_t ended_deadline_ms = seen_round_deadline_ms_;
  const bool ended = seen_round_id_ != 0;
  seen_round_id_ = open_id;
  seen_round_opened_ms_ = now_ms;
  seen_round_deadline_ms_ = open_id != 0 ? engine_->deadline_ms() : 0;
  if (ended && release_delay_ms_ > 0 &&
      engine_->job().config.policy == privacy::Policy::kTrustedAggregator) {
    HoldRelease(ended_deadline_ms);
  }
}

void JobHost::HoldRelease(int64_t deadline_ms) {
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
        engine_->job().config.name.c_str(), static_cast<long long>(late_ms),
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
  JobGauges g;
  if (engine_ == nullptr) return g;
  const jobs::JobConfig& config = engine_->job().config;
  g.has_job = true;
  g.name = config.name;
  g.iteration = engine_->iteration();
  g.rounds = config.rounds;
  g.central_epsilon = engine_->central_epsilon();
  g.delta = config.delta;
  g.accountant =
      config.accountant == jobs::CentralAccountant::kPld ? "pld" : "rdp";
  g.round_open = engine_->round_open();
  return g;
}

}  // namespace edgeadmm::server
