#include "edgeadmm/server/job_host.h"

#include <string>
#include <utility>
#include <vector>

#include "edgeadmm/jobs/job_store.h"
#include "edgeadmm/log.h"

namespace edgeadmm::server {

Status JobHost::PickUpRunningJob(int64_t now_ms) {
  last_pickup_ms_ = now_ms;
  if (engine_ != nullptr && engine_->job().state == jobs::JobState::kRunning) {
    return Status::Ok();
  }
  EDGEADMM_TRY_ASSIGN(const std::vector<jobs::JobRecord> all,
                      jobs::ListJobs(*db_));
  for (const jobs::JobRecord& job : all) {
    if (job.state != jobs::JobState::kRunning) continue;
    if (engine_ != nullptr && engine_->job().id == job.id) return Status::Ok();
    EDGEADMM_TRY_ASSIGN(engine_,
                        rounds::RoundEngine::Open(*db_, job.id, accountant_));
    // The round's commit runs in Tick, after the last receipt went out.
    engine_->set_close_in_advance(true);
    seen_round_id_ = 0;  // rounds of another job are not this one's
    handler_->set_engine(engine_.get());
    validator_.reset();
    if (!job.config.validation_data.empty()) {
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
    EDGEADMM_LOG_INFO("server: serving job %s (n = %lld, iteration %lld)",
                      job.config.name.c_str(), static_cast<long long>(job.n),
                      static_cast<long long>(engine_->iteration()));
    return Status::Ok();
  }
  return Status::Ok();
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
  seen_round_id_ = open_id;
  seen_round_opened_ms_ = now_ms;
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
