// RoundEngine: who may stay in a cohort (docs/aggregator.md, "Lifetime
// budget"; docs/security.md, "Revocation"): devices revoked in the registry
// leave the open round, and devices whose lifetime budget one more round
// would exceed are taken out of a drawn cohort.
#include <unordered_set>
#include <utility>

#include "edgeadmm/log.h"
#include "edgeadmm/rounds/round_engine.h"

namespace edgeadmm::rounds {

bool RoundEngine::DeviceEnabled(std::string_view device_id) const {
  auto enabled = registry_.IsEnabled(device_id);
  return enabled.ok() && *enabled;
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
  EDGEADMM_TRY_ASSIGN(auto budgets, store_.LifetimeBudgets());
  std::unordered_set<std::string> fresh;
  for (size_t i = 0; i < devices_.size(); ++i) {
    auto it = budgets.find(devices_[i]);
    if (it == budgets.end()) {
      ledgers_->ClearLifetime(i);
    } else if (!ledgers_->HasLifetime(i)) {
      fresh.insert(devices_[i]);
    }
  }
  EDGEADMM_TRY_ASSIGN(auto earlier, store_.EarlierLocalCurves(
                                        fresh, accountant_->order_count()));
  for (const auto& [id, budget] : budgets) {
    const size_t index = device_index_.at(id);
    if (fresh.count(id) == 0) {  // known device: the budget may have changed
      ledgers_->SetLifetimeBudget(index, budget);
      continue;
    }
    LedgerBook::Lifetime lifetime{budget, {}};
    if (auto e = earlier.find(id); e != earlier.end()) {
      lifetime.earlier = std::move(e->second);
    } else {
      lifetime.earlier.assign(accountant_->order_count(), 0.0);
    }
    ledgers_->SetLifetime(index, std::move(lifetime));
  }
  return Status::Ok();
}

size_t RoundEngine::DropLifetimeExhaustedMembers(OpenRound& round) {
  size_t dropped = 0;
  for (size_t i = 0; i < devices_.size(); ++i) {
    if (!round.in_cohort[i] || ledgers_->LifetimeAllows(i)) continue;
    round.in_cohort[i] = false;
    --round.cohort_size;
    ++dropped;
    EDGEADMM_LOG_INFO(
        "job %s round %lld: %s not sampled: its lifetime epsilon would reach "
        "%.4g (local, improved conversion)",
        job_.config.name.c_str(), static_cast<long long>(round.round_id),
        devices_[i].c_str(), ledgers_->NextLifetimeEpsilon(i));
  }
  return dropped;
}

Status RoundEngine::RegistryChanged() {
  if (!open_.has_value) return Status::Ok();
  EDGEADMM_TRY_ASSIGN(const size_t dropped, DropRevokedMembers(open_));
  if (dropped == 0) return Status::Ok();
  EDGEADMM_LOG_INFO("job %s round %lld: %zu revoked device(s) left the cohort",
                    job_.config.name.c_str(),
                    static_cast<long long>(open_.round_id), dropped);
  return store_.SetCohortSize(open_.round_id,
                              static_cast<int64_t>(open_.cohort_size));
}

}  // namespace edgeadmm::rounds
