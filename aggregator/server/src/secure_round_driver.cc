#include "edgeadmm/server/secure_round_driver.h"

#include <string>

#include "edgeadmm/log.h"
#include "edgeadmm/rounds/entropy.h"
#include "edgeadmm/secure_aggregation/ddg_decoding.h"

namespace edgeadmm::server {

using secure_aggregation::SecAggPhase;

rounds::RoundEngine* SecureRoundDriver::Find(
    const std::vector<rounds::RoundEngine*>& engines, int64_t job_id) const {
  for (rounds::RoundEngine* engine : engines) {
    if (engine->job().id == job_id) return engine;
  }
  return nullptr;
}

void SecureRoundDriver::Tick(const std::vector<rounds::RoundEngine*>& engines,
                             int64_t now_ms) {
  // Found before the service's tick, whose phase close may charge it.
  engine_ = job_id_ != 0 ? Find(engines, job_id_) : nullptr;
  secagg_->Tick(now_ms);
  if (job_id_ != 0) {
    rounds::RoundEngine* engine = engine_;
    const rounds::SecureRound* open =
        engine != nullptr ? engine->open_secure_round() : nullptr;
    if (open == nullptr || open->round_id != round_->round_id) {
      // The job stopped (its round discarded) or was unloaded.
      EDGEADMM_LOG_INFO(
          "secure aggregation: job %lld round %lld ended "
          "outside the phases; its SecAgg+ round is dropped",
          static_cast<long long>(job_id_),
          static_cast<long long>(round_->round_id));
      job_id_ = 0;
      engine_ = nullptr;
      round_.reset();
    } else {
      Finish(*engine, now_ms);
    }
  }
  if (job_id_ == 0) StartNext(engines, now_ms);
}

void SecureRoundDriver::Finish(rounds::RoundEngine& engine, int64_t now_ms) {
  const SecAggPhase phase = secagg_->phase();
  if (phase != SecAggPhase::kDone && phase != SecAggPhase::kAborted) return;
  const int64_t round_id = round_->round_id;
  Status ended;
  if (phase == SecAggPhase::kAborted) {
    // No sum: the charges are those stored before unmasking, if any.
    ended = engine.AbortSecureRound(round_id, secagg_->abort_reason().message(),
                                    now_ms);
  } else {
    // The sum is unmasked: its survivors are charged (Charge); the
    // engine charges them here only if that did not happen (all of the
    // cohort when the survivors cannot be read: an upper bound).
    const auto survivors = secagg_->round()->Survivors();
    std::vector<std::string> ids = round_->cohort;
    if (survivors.ok()) {
      ids.clear();
      for (uint32_t i : *survivors) ids.push_back(round_->cohort[i]);
    }
    const auto& words = *secagg_->sum();
    const auto sum = secure_aggregation::DecodeDdgSum(
        Span<const uint32_t>(words.data(), words.size()), round_->plan.round,
        ConstByteSpan(round_->rotation_seed.data(),
                      round_->rotation_seed.size()),
        static_cast<uint64_t>(round_id));
    if (!survivors.ok() || !sum.ok()) {
      ended = engine.DiscardSecureSum(
          round_id, ids,
          !survivors.ok() ? survivors.error().message() : sum.error().message(),
          now_ms);
    } else {
      ended = engine.CommitSecureSum(round_id, ids, *sum, now_ms);
      if (ended == Status::InvalidArgument()) {
        ended =
            engine.DiscardSecureSum(round_id, ids, "survivors refused", now_ms);
      }
    }
  }
  // ABORTED: discarded with its charges; FAILED_PRECONDITION: the round is
  // no longer open (the job stopped). Any other error is the store's: the
  // next tick retries.
  if (!ended.ok() && ended != Status::Aborted() &&
      ended != Status::FailedPrecondition()) {
    return;
  }
  job_id_ = 0;
  engine_ = nullptr;
  round_.reset();
}

host::Error SecureRoundDriver::Charge(const std::vector<uint32_t>& survivors) {
  if (engine_ == nullptr || !round_) {
    return host::Error::FailedPrecondition("no job drives the round");
  }
  std::vector<std::string> ids;
  for (uint32_t i : survivors) {
    if (i < round_->cohort.size()) ids.push_back(round_->cohort[i]);
  }
  const Status charged = engine_->ChargeSecureRound(round_->round_id, ids);
  if (!charged.ok()) {
    EDGEADMM_LOG_ERROR(
        "secure aggregation: job %lld round %lld: survivors not charged "
        "(%s); the round aborts unmasked",
        static_cast<long long>(job_id_),
        static_cast<long long>(round_->round_id), charged.str());
    return host::Error(charged, "survivors not charged");
  }
  return host::Error::Ok();
}

void SecureRoundDriver::StartNext(
    const std::vector<rounds::RoundEngine*>& engines, int64_t now_ms) {
  for (rounds::RoundEngine* engine : engines) {
    const rounds::SecureRound* open = engine->open_secure_round();
    if (open == nullptr) continue;
    if (job_id_ != 0) {
      if (held_logged_ != engine->job().id) {
        held_logged_ = engine->job().id;
        EDGEADMM_LOG_WARN(
            "secure aggregation: job %s waits; the daemon runs one "
            "secure-aggregation round at a time (job %lld's is running)",
            engine->job().config.name.c_str(), static_cast<long long>(job_id_));
      }
      continue;
    }
    if (!drbg_ready_) {
      rounds::KernelEntropy entropy;
      if (!drbg_.Init(entropy, ConstByteSpan()).ok()) return;
      drbg_ready_ = true;
    }
    const jobs::SecureAggregationPlan& plan = open->plan;
    secure_aggregation::SecAggRoundParams params;
    params.round_id = static_cast<uint64_t>(open->round_id);
    params.devices = static_cast<uint32_t>(open->cohort.size());
    params.degree = plan.secagg.degree;
    params.threshold = plan.secagg.threshold;
    params.bits = plan.round.bits;
    params.mask_length = plan.mask_length;
    params.min_survivors = plan.min_survivors;
    if (!drbg_
             .Generate(
                 ByteSpan(params.graph_seed.data(), params.graph_seed.size()))
             .ok()) {
      return;
    }
    const int64_t phase_ms = static_cast<int64_t>(
        engine->job().config.secure_aggregation.phase_seconds * 1000);
    job_id_ = engine->job().id;
    engine_ = engine;
    round_ = *open;
    const host::Error started =
        secagg_->Start(params, open->cohort, phase_ms, now_ms, drbg_);
    if (!started.ok()) {
      // E.g. a cohort the graph cannot be made for: the round cannot run.
      EDGEADMM_LOG_ERROR("secure aggregation: job %s round %lld: %s",
                         engine->job().config.name.c_str(),
                         static_cast<long long>(open->round_id),
                         started.message().c_str());
      if (engine->AbortSecureRound(open->round_id, started.message(), now_ms)
              .ok()) {
        job_id_ = 0;
        engine_ = nullptr;
        round_.reset();
      }
      return;
    }
    EDGEADMM_LOG_INFO(
        "secure aggregation: job %s round %lld: phases started "
        "(%zu devices, k %u, floor %u)",
        engine->job().config.name.c_str(),
        static_cast<long long>(open->round_id), open->cohort.size(),
        params.degree, params.min_survivors);
  }
}

}  // namespace edgeadmm::server
