// RoundEngine: a restart resumes the open secure-aggregation round
// (docs/aggregator.md, "A restart resumes a secure round"). Its record
// (RoundStore::InsertSecureRound, written before any device got the task)
// gives back the cohort in SecAgg+ index order, the rotation seed, the
// deadline the devices were told and, if the survivors were charged
// before unmasking, who; the server then rebuilds the phases from its
// round log (SecureRoundDriver) or aborts the round.
#include <algorithm>
#include <utility>

#include "edgeadmm/log.h"
#include "edgeadmm/rounds/round_engine.h"

namespace edgeadmm::rounds {

Status RoundEngine::LoseOpenRounds() {
  // A secure job's newest open round waits for ResumeSecureRound, which
  // needs the plan; it loses the others.
  if (job_.config.policy == privacy::Policy::kSecureAggregation) {
    return Status::Ok();
  }
  return store_.MarkOpenRoundsLost();
}

Status RoundEngine::ResumeSecureRound() {
  EDGEADMM_TRY_ASSIGN(std::optional<StoredSecureRound> stored,
                      store_.ResumableSecureRound());
  if (!stored.has_value()) return Status::Ok();
  SecureRound round;
  round.round_id = stored->round_id;
  round.plan = *secure_plan_;
  round.cohort = stored->cohort;
  round.deadline_ms = stored->deadline_ms;
  round.resumed = true;
  round.charged = stored->charged;
  std::vector<bool> in_cohort(devices_.size(), false);
  bool whole = stored->rotation_seed.size() == round.rotation_seed.size();
  for (const std::string& id : round.cohort) {
    const auto it = device_index_.find(id);
    if (it == device_index_.end() || in_cohort[it->second]) {
      whole = false;
      break;
    }
    in_cohort[it->second] = true;
  }
  for (const std::string& id : stored->charged_survivors) {
    const auto it = device_index_.find(id);
    if (!whole || it == device_index_.end() || !in_cohort[it->second]) {
      whole = false;
      break;
    }
    round.charged_devices.push_back(it->second);
  }
  if (!whole) {
    // A record this job's devices cannot hold: the round is lost (with
    // its charges, if any), as without a record.
    EDGEADMM_LOG_ERROR("job %s round %lld: damaged secure round record; lost",
                       job_.config.name.c_str(),
                       static_cast<long long>(round.round_id));
    return store_.MarkOpenRoundsLost();
  }
  std::copy(reinterpret_cast<const std::byte*>(stored->rotation_seed.data()),
            reinterpret_cast<const std::byte*>(stored->rotation_seed.data()) +
                stored->rotation_seed.size(),
            round.rotation_seed.begin());
  open_ = OpenRound();
  open_.has_value = true;
  open_.round_id = round.round_id;
  open_.deadline_ms = round.deadline_ms;
  open_.in_cohort = std::move(in_cohort);
  open_.cohort_size = round.cohort.size();
  EDGEADMM_LOG_INFO(
      "job %s round %lld: secure round resumed from the store after a "
      "restart (%zu devices, %s)",
      job_.config.name.c_str(), static_cast<long long>(round.round_id),
      round.cohort.size(),
      round.charged ? "survivors charged" : "not charged yet");
  secure_ = std::move(round);
  return Status::Ok();
}

}  // namespace edgeadmm::rounds
