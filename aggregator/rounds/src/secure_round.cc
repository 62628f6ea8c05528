// RoundEngine's secure-aggregation rounds (round_engine.h, secure_round.h).
#include <algorithm>
#include <string>
#include <unordered_set>
#include <utility>

#include "edgeadmm/algorithms/registry.h"
#include "edgeadmm/log.h"
#include "edgeadmm/rounds/round_engine.h"

namespace edgeadmm::rounds {

Status RoundEngine::LoadSecurePlan() {
  if (job_.config.policy != privacy::Policy::kSecureAggregation) {
    return Status::Ok();
  }
  auto plan = jobs::PlanSecureAggregation(job_.config);
  if (!plan.ok()) {
    EDGEADMM_LOG_ERROR("job %s: no secure-aggregation plan: %s",
                       job_.config.name.c_str(),
                       plan.error().message().c_str());
    return Status(plan.error().code());
  }
  secure_plan_ = std::move(*plan);
  return role_ == Role::kSole ? ResumeSecureRound() : Status::Ok();
}

Status RoundEngine::OpenSecureRound(int64_t now_ms) {
  SecureRound round;
  round.round_id = open_.round_id;
  round.plan = *secure_plan_;
  for (size_t i = 0; i < devices_.size(); ++i) {
    if (open_.in_cohort[i]) round.cohort.push_back(devices_[i]);
  }
  EDGEADMM_TRY(noise_rng_->Fill(
      ByteSpan(round.rotation_seed.data(), round.rotation_seed.size())));
  // What devices are told (Task::deadline_ms): the four phases' time; the
  // round itself ends when the server commits or aborts it.
  const int64_t phases_ms = static_cast<int64_t>(
      4 * job_.config.secure_aggregation.phase_seconds * 1000);
  if (open_.deadline_ms < now_ms + phases_ms) {
    open_.deadline_ms = now_ms + phases_ms;
  }
  round.deadline_ms = open_.deadline_ms;
  secure_ = std::move(round);
  // Durable before any device gets the task: a restart resumes the round
  // with this cohort order and seed (secure_round_resume.cc). Without it
  // (a store error) a restart loses the round.
  const auto* seed =
      reinterpret_cast<const uint8_t*>(secure_->rotation_seed.data());
  return store_.InsertSecureRound(
      secure_->round_id, secure_->cohort,
      std::vector<uint8_t>(seed, seed + secure_->rotation_seed.size()),
      secure_->deadline_ms);
}

Result<std::vector<size_t>> RoundEngine::SurvivorIndices(
    const std::vector<std::string>& survivors) const {
  // The round's cohort as it opened (a member disabled since is still one).
  const std::vector<std::string>& cohort = secure_->cohort;
  std::vector<size_t> indices;
  std::unordered_set<size_t> seen;
  for (const std::string& id : survivors) {
    auto it = device_index_.find(id);
    if (it == device_index_.end() ||
        std::find(cohort.begin(), cohort.end(), id) == cohort.end() ||
        !seen.insert(it->second).second) {
      return Status::InvalidArgument();
    }
    indices.push_back(it->second);
  }
  return indices;
}

std::vector<size_t> RoundEngine::NamedSurvivors(
    const std::vector<std::string>& survivors) const {
  // Every survivor that can be named; an identity outside the cohort or
  // repeated has no ledger in this round.
  std::vector<size_t> participants;
  std::unordered_set<std::string> seen;
  for (const std::string& id : survivors) {
    if (!seen.insert(id).second) continue;
    auto named = SurvivorIndices({id});
    if (named.ok()) participants.push_back(named->front());
  }
  return participants;
}

Status RoundEngine::ChargeSecureRound(
    int64_t round_id, const std::vector<std::string>& survivors) {
  if (!secure_.has_value() || secure_->round_id != round_id) {
    return Status::FailedPrecondition();
  }
  const std::vector<size_t> participants = NamedSurvivors(survivors);
  if (secure_->charged) {
    // A resumed round closes its masked inputs again: never unmask a
    // survivor the stored charge lacks.
    const std::vector<size_t>& charged = secure_->charged_devices;
    for (size_t index : participants) {
      if (std::find(charged.begin(), charged.end(), index) == charged.end()) {
        return Status::FailedPrecondition();
      }
    }
    return Status::Ok();
  }
  LedgerCharge charge = ledgers_->Plan(participants);
  std::vector<LocalCharge> locals;
  for (size_t index : participants) {
    locals.push_back(ledgers_->PlanLocal(index));
  }
  std::vector<LedgerRowRef> rows = ledgers_->Rows(charge);
  for (const LocalCharge& local : locals) {
    rows.push_back(ledgers_->LocalRow(local));
  }
  std::vector<std::string> ids;
  for (size_t index : participants) ids.push_back(devices_[index]);
  EDGEADMM_TRY(store_.ChargeOpenRound(round_id, rows, &ids));
  ledgers_->Apply(std::move(charge));
  for (LocalCharge& local : locals) ledgers_->ApplyLocal(std::move(local));
  secure_->charged = true;
  secure_->charged_devices = participants;
  EDGEADMM_LOG_INFO("job %s round %lld: %zu survivors charged before unmasking",
                    job_.config.name.c_str(), static_cast<long long>(round_id),
                    participants.size());
  return Status::Ok();
}

Status RoundEngine::DiscardCharged(const std::vector<size_t>& participants,
                                   int64_t now_ms) {
  // Charged before unmasking: the charges are stored already.
  if (secure_->charged) return DiscardRound(now_ms);
  LedgerCharge charge = ledgers_->Plan(participants);
  std::vector<LocalCharge> locals;
  for (size_t index : participants)
    locals.push_back(ledgers_->PlanLocal(index));
  return DiscardRound(now_ms, &charge, &locals);
}

Status RoundEngine::DiscardSecureSum(int64_t round_id,
                                     const std::vector<std::string>& survivors,
                                     std::string_view reason, int64_t now_ms) {
  if (!secure_.has_value() || secure_->round_id != round_id) {
    return Status::FailedPrecondition();
  }
  const std::vector<size_t> participants = NamedSurvivors(survivors);
  EDGEADMM_LOG_ERROR(
      "job %s round %lld: the unmasked sum is not committed (%.*s); round "
      "discarded, %zu survivors charged",
      job_.config.name.c_str(), static_cast<long long>(round_id),
      static_cast<int>(reason.size()), reason.data(), participants.size());
  return DiscardCharged(participants, now_ms);
}

Status RoundEngine::CommitSecureSum(int64_t round_id,
                                    const std::vector<std::string>& survivors,
                                    const std::vector<double>& sum,
                                    int64_t now_ms) {
  if (!secure_.has_value() || secure_->round_id != round_id) {
    return Status::FailedPrecondition();
  }
  EDGEADMM_TRY_ASSIGN(const std::vector<size_t> participants,
                      SurvivorIndices(survivors));
  // From here the gateway has seen the sum: a refusal discards the round
  // with every survivor's charges (as CloseRound for a model beyond
  // float32: the mechanism ran).
  const char* refusal = nullptr;
  if (participants.size() < secure_->plan.min_survivors) {
    refusal = "fewer survivors than the plan's floor";
  }
  const std::vector<size_t>& charged = secure_->charged_devices;
  for (size_t index : participants) {
    if (!open_.in_cohort[index]) refusal = "a survivor left the cohort";
    if (secure_->charged &&
        std::find(charged.begin(), charged.end(), index) == charged.end()) {
      refusal = "a survivor was not charged before unmasking";
    }
  }
  const algorithms::SumRounds* sums =
      algorithms::Get(job_.config.algorithm).sum_rounds();
  ServerModel next_model = model_;
  if (refusal == nullptr && sums == nullptr) refusal = "no sum rounds";
  if (refusal == nullptr) {
    const Status applied = sums->ApplySum(
        job_.config, job_.n, sum, static_cast<int64_t>(participants.size()),
        *noise_rng_, next_model);
    if (applied == Status::OutOfRange()) {
      refusal = "the next model leaves float32's range";
    } else if (!applied.ok()) {
      refusal = "the sum does not apply to the model";
    }
  }
  if (refusal != nullptr) {
    EDGEADMM_LOG_ERROR(
        "job %s round %lld: %s; round discarded, its privacy charges kept",
        job_.config.name.c_str(), static_cast<long long>(round_id), refusal);
    EDGEADMM_TRY(DiscardCharged(participants, now_ms));
    return Status::Aborted();
  }
  // Charged before unmasking (ChargeSecureRound): the commit adds no row.
  const bool charged_now = !secure_->charged;
  LedgerCharge charge = charged_now ? ledgers_->Plan(participants)
                                    : ledgers_->Unchanged(participants.size());
  // Each survivor's device ledger: the gateway ran its encoding's release
  // (as for an accepted upload under the other policies).
  std::vector<LocalCharge> locals;
  for (size_t i = 0; charged_now && i < participants.size(); ++i) {
    locals.push_back(ledgers_->PlanLocal(participants[i]));
  }
  RoundCommit commit;
  commit.closed_at_ms = now_ms;
  commit.participants = static_cast<int64_t>(participants.size());
  commit.secure_sum = true;
  if (charged_now) commit.ledger = ledgers_->Rows(charge);
  for (const LocalCharge& local : locals) {
    commit.ledger.push_back(ledgers_->LocalRow(local));
  }
  RoundSummary summary;
  EDGEADMM_TRY(StoreCommit(commit, next_model, charge, summary));
  for (LocalCharge& local : locals) ledgers_->ApplyLocal(std::move(local));
  Committed(summary);
  return Status::Ok();
}

Status RoundEngine::AbortSecureRound(int64_t round_id, std::string_view reason,
                                     int64_t now_ms) {
  if (!secure_.has_value() || secure_->round_id != round_id) {
    return Status::FailedPrecondition();
  }
  EDGEADMM_LOG_WARN("job %s round %lld: secure aggregation aborted (%.*s)",
                    job_.config.name.c_str(), static_cast<long long>(round_id),
                    static_cast<int>(reason.size()), reason.data());
  return DiscardRound(now_ms);
}

}  // namespace edgeadmm::rounds
