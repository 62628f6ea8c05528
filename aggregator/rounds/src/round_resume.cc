// RoundEngine: a restart resumes the open round of an algorithm whose
// rounds survive it (BarrierRounds::ResumesOpenRound; docs/aggregator.md,
// "A restart loses nothing"): the round and its stored uploads are read
// back, and the round restarts with a whole deadline at the first tick. A
// coordinator that took over another's open round (TakeOverOpenRound,
// round_follower.cc) starts it here too.
#include <optional>
#include <utility>

#include "edgeadmm/log.h"
#include "edgeadmm/rounds/round_engine.h"
#include "edgeadmm/store/blob.h"

namespace edgeadmm::rounds {

Status RoundEngine::ResumeOpenRound() {
  EDGEADMM_TRY_ASSIGN(std::optional<StoredOpenRound> stored,
                      store_.ResumableOpenRound());
  if (!stored.has_value()) return Status::Ok();
  OpenRound round;
  round.has_value = true;
  round.round_id = stored->round_id;
  round.retries = stored->retries;
  round.awaiting_restart_deadline = true;
  // A barrier round: every node (OpenNextRound's cohort); StartResumedRound
  // takes out those revoked meanwhile.
  round.in_cohort.assign(devices_.size(), true);
  round.cohort_size = devices_.size();
  const size_t length =
      static_cast<size_t>(UploadLength(job_.config, iteration_));
  for (StoredOpenRound::Accepted& a : stored->uploads) {
    auto it = device_index_.find(a.device_id);
    if (it == device_index_.end()) return Status::DataLoss();
    EDGEADMM_TRY_ASSIGN(std::vector<double> values,
                        store::DecodeFloats(a.payload));
    if (values.size() != length) return Status::DataLoss();
    round.accepted.emplace(
        it->second, OpenRound::Accepted{std::move(a.payload),
                                        std::move(a.fingerprint_digest)});
  }
  open_ = std::move(round);
  return Status::Ok();
}

Status RoundEngine::StartResumedRound(int64_t now_ms) {
  open_.awaiting_restart_deadline = false;
  // A whole deadline from now: the parties first have to find the restarted
  // daemon (a new DTLS session), and a deadline counted from before the
  // crash would charge them the gateway's downtime. The retries the round
  // already used stay used (rounds.retries), so restarts cannot extend a
  // barrier round forever.
  open_.deadline_ms =
      now_ms + static_cast<int64_t>(job_.config.deadline_seconds * 1000);
  EDGEADMM_TRY(DropRevokedMembers(open_).status());
  if (!resumes_open_round_) return Status::Ok();  // TakeOverOpenRound's
  EDGEADMM_LOG_INFO(
      "job %s round %lld: resumed after a restart with %zu of %zu uploads "
      "from the store (retries used %lld of %lld); deadline in %.0f s",
      job_.config.name.c_str(), static_cast<long long>(open_.round_id),
      open_.accepted.size(), devices_.size(),
      static_cast<long long>(open_.retries),
      static_cast<long long>(BarrierRetries()), job_.config.deadline_seconds);
  if (open_.cohort_size != devices_.size()) {
    return FailShortBarrierCohort(now_ms);
  }
  return Status::Ok();
}

}  // namespace edgeadmm::rounds
