#include "edgeadmm/server/secure_round_driver.h"

#include <algorithm>
#include <cstdio>
#include <string>

#include "edgeadmm/log.h"
#include "edgeadmm/rounds/entropy.h"
#include "edgeadmm/secagg/phase_frames.h"
#include "edgeadmm/secure_aggregation/ddg_decoding.h"

namespace edgeadmm::server {

using secure_aggregation::SecAggPhase;

SecureRoundDriver::SecureRoundDriver(SecAggRounds& rounds)
    : rounds_(&rounds), slots_(rounds.slots()) {
  for (size_t i = 0; i < slots_.size(); ++i) {
    rounds.slot(i).set_before_unmask(
        [this, i](const std::vector<uint32_t>& survivors) {
          return Charge(i, survivors);
        });
  }
}

size_t SecureRoundDriver::running() const {
  return static_cast<size_t>(std::count_if(
      slots_.begin(), slots_.end(), [](const Slot& s) { return s.job_id; }));
}

rounds::RoundEngine* SecureRoundDriver::Find(
    const std::vector<rounds::RoundEngine*>& engines, int64_t job_id) const {
  for (rounds::RoundEngine* engine : engines) {
    if (engine->job().id == job_id) return engine;
  }
  return nullptr;
}

void SecureRoundDriver::Tick(const std::vector<rounds::RoundEngine*>& engines,
                             int64_t now_ms) {
  // Found before the services' ticks, whose phase closes may charge them.
  for (Slot& slot : slots_) {
    slot.engine = slot.job_id != 0 ? Find(engines, slot.job_id) : nullptr;
  }
  rounds_->Tick(now_ms);
  for (size_t i = 0; i < slots_.size(); ++i) {
    Slot& slot = slots_[i];
    if (slot.job_id == 0) continue;
    const rounds::SecureRound* open =
        slot.engine != nullptr ? slot.engine->open_secure_round() : nullptr;
    if (open == nullptr || open->round_id != slot.round->round_id) {
      // The job stopped (its round discarded) or was unloaded.
      EDGEADMM_LOG_INFO(
          "secure aggregation: job %lld round %lld ended "
          "outside the phases; its SecAgg+ round is dropped",
          static_cast<long long>(slot.job_id),
          static_cast<long long>(slot.round->round_id));
      slot = Slot{};
    } else {
      Finish(i, now_ms);
    }
  }
  StartNext(engines, now_ms);
}

void SecureRoundDriver::Finish(size_t index, int64_t now_ms) {
  Slot& slot = slots_[index];
  SecAggService& secagg = rounds_->slot(index);
  rounds::RoundEngine& engine = *slot.engine;
  const SecAggPhase phase = secagg.phase();
  if (phase != SecAggPhase::kDone && phase != SecAggPhase::kAborted) return;
  const rounds::SecureRound& round = *slot.round;
  const int64_t round_id = round.round_id;
  Status ended;
  if (phase == SecAggPhase::kAborted) {
    // No sum: the charges are those stored before unmasking, if any.
    ended = engine.AbortSecureRound(round_id, secagg.abort_reason().message(),
                                    now_ms);
  } else {
    // The sum is unmasked: its survivors are charged (Charge); the
    // engine charges them here only if that did not happen (all of the
    // cohort when the survivors cannot be read: an upper bound).
    const auto survivors = secagg.round()->Survivors();
    std::vector<std::string> ids = round.cohort;
    if (survivors.ok()) {
      ids.clear();
      for (uint32_t i : *survivors) ids.push_back(round.cohort[i]);
    }
    const auto& words = *secagg.sum();
    const auto sum = secure_aggregation::DecodeDdgSum(
        Span<const uint32_t>(words.data(), words.size()), round.plan.round,
        ConstByteSpan(round.rotation_seed.data(), round.rotation_seed.size()),
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
  slot = Slot{};
}

host::Error SecureRoundDriver::Charge(size_t index,
                                      const std::vector<uint32_t>& survivors) {
  const Slot& slot = slots_[index];
  if (slot.engine == nullptr || !slot.round) {
    return host::Error::FailedPrecondition("no job drives the round");
  }
  std::vector<std::string> ids;
  for (uint32_t i : survivors) {
    if (i < slot.round->cohort.size()) ids.push_back(slot.round->cohort[i]);
  }
  const Status charged =
      slot.engine->ChargeSecureRound(slot.round->round_id, ids);
  if (!charged.ok()) {
    EDGEADMM_LOG_ERROR(
        "secure aggregation: job %lld round %lld: survivors not charged "
        "(%s); the round aborts unmasked",
        static_cast<long long>(slot.job_id),
        static_cast<long long>(slot.round->round_id), charged.str());
    return host::Error(charged, "survivors not charged");
  }
  return host::Error::Ok();
}

void SecureRoundDriver::LogHeld(const rounds::RoundEngine& engine) {
  Waiting& waiting = waiting_[engine.job().id];
  if (waiting.logged) return;
  waiting.logged = true;
  EDGEADMM_LOG_WARN(
      "secure aggregation: job %s waits; the daemon runs at most %zu "
      "secure-aggregation rounds at once",
      engine.job().config.name.c_str(), slots_.size());
}

void SecureRoundDriver::StartNext(
    const std::vector<rounds::RoundEngine*>& engines, int64_t now_ms) {
  std::vector<rounds::RoundEngine*> waiting;
  std::map<int64_t, Waiting> still_waiting;
  for (rounds::RoundEngine* engine : engines) {
    if (engine->open_secure_round() == nullptr) continue;
    const int64_t job = engine->job().id;
    if (std::any_of(slots_.begin(), slots_.end(),
                    [job](const Slot& s) { return s.job_id == job; })) {
      continue;
    }
    waiting.push_back(engine);
    const auto known = waiting_.find(job);
    still_waiting[job] =
        known != waiting_.end() ? known->second : Waiting{now_ms, false};
  }
  // Jobs whose round ended while it waited are forgotten.
  waiting_ = std::move(still_waiting);
  // Longest waiting first (then job id): a job cannot be starved by
  // others that keep opening rounds.
  std::sort(waiting.begin(), waiting.end(),
            [this](const rounds::RoundEngine* a, const rounds::RoundEngine* b) {
              const int64_t since_a = waiting_.at(a->job().id).since_ms;
              const int64_t since_b = waiting_.at(b->job().id).since_ms;
              if (since_a != since_b) return since_a < since_b;
              return a->job().id < b->job().id;
            });
  for (rounds::RoundEngine* engine : waiting) {
    const auto free = std::find_if(slots_.begin(), slots_.end(),
                                   [](const Slot& s) { return s.job_id == 0; });
    if (free == slots_.end()) {
      LogHeld(*engine);
      continue;
    }
    waiting_.erase(engine->job().id);
    Start(static_cast<size_t>(free - slots_.begin()), *engine, now_ms);
  }
}

std::string SecureRoundDriver::LogPath(int64_t job_id) const {
  return log_prefix_.empty() ? std::string()
                             : log_prefix_ + std::to_string(job_id);
}

void SecureRoundDriver::Resume(size_t index, rounds::RoundEngine& engine,
                               int64_t now_ms) {
  const rounds::SecureRound& open = *engine.open_secure_round();
  Slot& slot = slots_[index];
  slot.job_id = engine.job().id;
  slot.engine = &engine;  // the recovery may close phase 3: Charge
  slot.round = open;
  SecAggService& service = rounds_->slot(index);
  service.set_log_path(LogPath(slot.job_id));
  const uint64_t round_id = SecAggRoundId(static_cast<uint64_t>(slot.job_id),
                                          static_cast<uint64_t>(open.round_id));
  host::Error e;
  if (log_prefix_.empty()) {
    e = host::Error::Unavailable("the daemon keeps no round log");
  } else if (now_ms >= open.deadline_ms) {
    e = host::Error::FailedPrecondition("restarted past the round's deadline");
  } else {
    e = service.Recover(now_ms, drbg_);
    if (e.ok() && (service.round_id() != round_id ||
                   service.identities() != open.cohort)) {
      e = host::Error::DataLoss("the round log is another round's");
    }
  }
  if (e.ok()) {
    EDGEADMM_LOG_INFO(
        "secure aggregation: job %s round %lld: phases resumed from the round "
        "log in slot %zu (phase %d)",
        engine.job().config.name.c_str(), static_cast<long long>(open.round_id),
        index, static_cast<int>(service.phase()));
    return;
  }
  // The safe end: nothing more is unmasked; the charges stored before
  // unmasking, if any, stay with the round.
  EDGEADMM_LOG_WARN(
      "secure aggregation: job %s round %lld cannot resume (%s); aborted",
      engine.job().config.name.c_str(), static_cast<long long>(open.round_id),
      e.message().c_str());
  service.Drop();
  if (!log_prefix_.empty()) std::remove(LogPath(slot.job_id).c_str());
  if (engine.AbortSecureRound(open.round_id, e.message(), now_ms).ok()) {
    slot = Slot{};
  }
}

void SecureRoundDriver::Start(size_t index, rounds::RoundEngine& engine,
                              int64_t now_ms) {
  const rounds::SecureRound* open = engine.open_secure_round();
  if (!drbg_ready_) {
    rounds::KernelEntropy entropy;
    if (!drbg_.Init(entropy, ConstByteSpan()).ok()) return;
    drbg_ready_ = true;
  }
  if (open->resumed) {
    Resume(index, engine, now_ms);
    return;
  }
  const jobs::SecureAggregationPlan& plan = open->plan;
  secure_aggregation::SecAggRoundParams params;
  // Devices name it in phase 0 from their task (SecAggRoundId).
  params.round_id = SecAggRoundId(static_cast<uint64_t>(engine.job().id),
                                  static_cast<uint64_t>(open->round_id));
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
      engine.job().config.secure_aggregation.phase_seconds * 1000);
  Slot& slot = slots_[index];
  slot.job_id = engine.job().id;
  slot.engine = &engine;
  slot.round = *open;
  rounds_->slot(index).set_log_path(LogPath(slot.job_id));
  const host::Error started =
      rounds_->slot(index).Start(params, open->cohort, phase_ms, now_ms, drbg_);
  if (!started.ok()) {
    // E.g. a cohort the graph cannot be made for: the round cannot run.
    EDGEADMM_LOG_ERROR("secure aggregation: job %s round %lld: %s",
                       engine.job().config.name.c_str(),
                       static_cast<long long>(open->round_id),
                       started.message().c_str());
    if (engine.AbortSecureRound(open->round_id, started.message(), now_ms)
            .ok()) {
      slot = Slot{};
    }
    return;
  }
  EDGEADMM_LOG_INFO(
      "secure aggregation: job %s round %lld: phases started in slot %zu "
      "(%zu devices, k %u, floor %u)",
      engine.job().config.name.c_str(), static_cast<long long>(open->round_id),
      index, open->cohort.size(), params.degree, params.min_survivors);
}

}  // namespace edgeadmm::server
