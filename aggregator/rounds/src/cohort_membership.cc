// RoundEngine: who may stay in a cohort (docs/aggregator.md, "Lifetime
// budget"; docs/security.md, "Revocation"): devices revoked in the registry
// leave the open round, and devices whose lifetime budget (local or
// central) one more round would exceed, or that have taken part as often as
// the algorithm's participation cap allows, are taken out of a drawn cohort.
#include <unordered_set>
#include <utility>
#include <vector>

#include "edgeadmm/log.h"
#include "edgeadmm/rounds/round_engine.h"

namespace edgeadmm::rounds {

bool RoundEngine::DeviceEnabled(std::string_view device_id) const {
  auto enabled = registry_.IsEnabled(device_id);
  return enabled.ok() && *enabled;
}

bool RoundEngine::AwaitsUpload(std::string_view device_id) const {
  if (!open_.has_value) return false;
  const auto it = device_index_.find(std::string(device_id));
  return it != device_index_.end() && open_.in_cohort[it->second] &&
         open_.accepted.count(it->second) == 0;
}

Result<size_t> RoundEngine::DropRevokedMembers(OpenRound& round) {
  EDGEADMM_TRY_ASSIGN(const std::vector<std::string> revoked,
                      store_.RevokedDevices());
  size_t dropped = 0;
  for (const std::string& id : revoked) {
    auto it = device_index_.find(id);
    if (it == device_index_.end() || !round.in_cohort[it->second] ||
        round.accepted.count(it->second) != 0) {
      continue;
    }
    round.in_cohort[it->second] = false;
    --round.cohort_size;
    ++dropped;
  }
  return dropped;
}

Status RoundEngine::RefreshLifetimeBudgets() {
  for (const registry::LifetimeLedger ledger :
       {registry::LifetimeLedger::kLocal, registry::LifetimeLedger::kCentral}) {
    EDGEADMM_TRY(RefreshLifetimeBudgets(ledger));
  }
  return Status::Ok();
}

Status RoundEngine::RefreshLifetimeBudgets(registry::LifetimeLedger ledger) {
  EDGEADMM_TRY_ASSIGN(auto budgets, store_.LifetimeBudgets(ledger));
  std::unordered_set<std::string> fresh;
  for (size_t i = 0; i < devices_.size(); ++i) {
    auto it = budgets.find(devices_[i]);
    if (it == budgets.end()) {
      ledgers_->ClearLifetime(ledger, i);
    } else if (!ledgers_->HasLifetime(ledger, i) ||
               (reservations_ != nullptr &&
                reservations_->OthersSeen(job_.id))) {
      // With other jobs running at once their curves grow: read again.
      fresh.insert(devices_[i]);
    }
  }
  EDGEADMM_TRY_ASSIGN(
      auto earlier,
      store_.EarlierCurves(ledger, fresh, accountant_->order_count()));
  for (const auto& [id, budget] : budgets) {
    const size_t index = device_index_.at(id);
    // The registry stores only budgets the filter accepts.
    auto filter = privacy::RdpFilter::Create(accountant_->orders(),
                                             budget.epsilon, budget.delta);
    if (!filter.ok()) return Status::DataLoss();
    if (fresh.count(id) == 0) {  // known device: the budget may have changed
      ledgers_->SetLifetimeFilter(ledger, index, *filter);
      continue;
    }
    LedgerBook::Lifetime lifetime{*filter, {}};
    if (auto e = earlier.find(id); e != earlier.end()) {
      lifetime.earlier = std::move(e->second);
    } else {
      lifetime.earlier.assign(accountant_->order_count(), 0.0);
    }
    ledgers_->SetLifetime(ledger, index, std::move(lifetime));
  }
  return Status::Ok();
}

size_t RoundEngine::DropLifetimeExhaustedMembers(OpenRound& round) {
  size_t dropped = 0;
  for (size_t i = 0; i < devices_.size(); ++i) {
    if (round.in_cohort[i] && ledgers_->ParticipationCapReached(i)) {
      // The algorithm's per-participation charge covers no more.
      round.in_cohort[i] = false;
      --round.cohort_size;
      ++dropped;
      continue;
    }
    if (!round.in_cohort[i]) continue;
    registry::LifetimeLedger refused = registry::LifetimeLedger::kLocal;
    std::vector<double> reserved_local;
    std::vector<double> reserved_central;
    if (reservations_ != nullptr) {
      reservations_->AddOthers(job_.id, devices_[i], reserved_local,
                               reserved_central);
    }
    if (ledgers_->LifetimeAllows(i, &refused, &reserved_local,
                                 &reserved_central)) {
      continue;
    }
    round.in_cohort[i] = false;
    --round.cohort_size;
    ++dropped;
    const bool local = refused == registry::LifetimeLedger::kLocal;
    EDGEADMM_LOG_INFO(
        "job %s round %lld: %s not sampled: its lifetime %s epsilon would "
        "reach %.4g (%s ledgers of every job, RDP filter at order %g)",
        job_.config.name.c_str(), static_cast<long long>(round.round_id),
        devices_[i].c_str(), local ? "local" : "central",
        ledgers_->NextLifetimeEpsilon(refused, i), local ? "local" : "central",
        ledgers_->LifetimeOrder(refused, i));
  }
  return dropped;
}

void RoundEngine::ReserveOpenRound() {
  if (reservations_ == nullptr || !open_.has_value) return;
  // Trusted-aggregator charges its one central curve to every device of
  // the job, sampled or not.
  const bool central_for_all =
      job_.config.policy == privacy::Policy::kTrustedAggregator;
  std::unordered_set<std::string> cohort;
  std::unordered_set<std::string> central;
  for (size_t i = 0; i < devices_.size(); ++i) {
    if (open_.in_cohort[i]) cohort.insert(devices_[i]);
    if (open_.in_cohort[i] || central_for_all) central.insert(devices_[i]);
  }
  reservations_->Reserve(
      job_.id, std::move(cohort), std::move(central),
      {ledgers_->local_round_rdp(), ledgers_->worst_central_round_rdp()});
}

Status RoundEngine::RegistryChanged() {
  // A follower's judge reads the registry for every upload; the cohort is
  // the coordinator's.
  if (!open_.has_value || role_ == Role::kFollower) return Status::Ok();
  EDGEADMM_TRY_ASSIGN(const size_t dropped, DropRevokedMembers(open_));
  if (dropped == 0) return Status::Ok();
  EDGEADMM_LOG_INFO("job %s round %lld: %zu revoked device(s) left the cohort",
                    job_.config.name.c_str(),
                    static_cast<long long>(open_.round_id), dropped);
  return store_.SetCohortSize(open_.round_id,
                              static_cast<int64_t>(open_.cohort_size));
}

}  // namespace edgeadmm::rounds
