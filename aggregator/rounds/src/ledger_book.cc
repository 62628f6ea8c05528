#include "edgeadmm/rounds/ledger_book.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <unordered_map>
#include <utility>

#include "edgeadmm/algorithms/registry.h"
#include "edgeadmm/privacy/policy.h"
#include "edgeadmm/rounds/party_ledger.h"
#include "edgeadmm/rounds/pld_round_accountant.h"

namespace edgeadmm::rounds {
namespace {

bool StartsWith(const std::string& s, const char* prefix) {
  return s.rfind(prefix, 0) == 0;
}

// The PLD accountant of a pld job (null for rdp, and for an algorithm that
// charges its local curve as central). `central_round`: the
// central ledgers' per-round mechanism; only a subsampled one
// (trusted-aggregator) is needed to read schedules back.
std::unique_ptr<const RoundAccountant> MakePld(const RoundAccountant& rdp,
                                               const jobs::JobConfig& config,
                                               RoundMechanism central_round) {
  if (config.accountant != jobs::CentralAccountant::kPld) return nullptr;
  // No PLD of the distributed discrete Gaussian: RDP, improved conversion.
  if (config.policy == privacy::Policy::kSecureAggregation) return nullptr;
  // Central = local curve (ChargesLocalAsCentral): converted as the local
  // ledger.
  if (algorithms::Get(config.algorithm).ChargesLocalAsCentral()) {
    return nullptr;
  }
  return std::make_unique<PldRoundAccountant>(rdp, central_round);
}

}  // namespace

LedgerBook::LedgerBook(const RoundAccountant& accountant,
                       const jobs::JobConfig& config,
                       const std::vector<std::string>& devices)
    : accountant_(&accountant),
      config_(&config),
      devices_(&devices),
      participation_(algorithms::Get(config.algorithm).participation_charge()),
      secure_(config.policy == privacy::Policy::kSecureAggregation
                  ? SecureAggregationRoundCharge(accountant, config)
                  : SecureRoundCharge{}),
      pld_(
          // config_ is set: CentralMechanism may be called.
          MakePld(accountant, config, CentralMechanism(0))),
      central_accountant_(pld_ ? pld_.get() : &accountant),
      epsilon_(accountant, config.delta),
      central_epsilon_memo_(*central_accountant_, config.delta) {
  participations_.assign(devices.size(), 0);
  central_.assign(accountant.order_count(), 0.0);
  const SharedCurves::Curve zero =
      curves_.Hold(std::make_shared<const std::vector<double>>(central_));
  device_central_.assign(devices.size(), zero);
  device_local_.assign(devices.size(), zero);
  device_central_epsilon_.assign(devices.size(), 0.0);
  budget_central_.assign(devices.size(), std::nan(""));
  budget_local_.assign(devices.size(), std::nan(""));
  // The job's config does not change: these curves neither.
  local_rdp_ = secure_aggregation() ? secure_.local_rdp
                                    : accountant.RoundRdp(LocalMechanism());
  // ChargesLocalAsCentral: an upload charges "central:<id>" its local curve.
  if (algorithms::Get(config.algorithm).ChargesLocalAsCentral()) {
    upload_central_rdp_ = local_rdp_;
  }
  worst_central_rdp_ =
      secure_aggregation() ? secure_.rdp
      : !upload_central_rdp_.empty()
          ? upload_central_rdp_
          : accountant.RoundRdp(
                one_central_curve()
                    ? CentralMechanism(0)
                    : CentralMechanism(static_cast<size_t>(config.m_min)));
}

bool LedgerBook::trusted_aggregator() const {
  return config_->policy == privacy::Policy::kTrustedAggregator;
}

bool LedgerBook::one_central_curve() const {
  return trusted_aggregator() && participation_ == nullptr;
}

bool LedgerBook::ParticipationCapReached(size_t index) const {
  return participation_ != nullptr &&
         participations_[index] >= participation_->MaxParticipations(*config_);
}

Status LedgerBook::Load(RoundStore& store,
                        const std::unordered_map<std::string, size_t>& index) {
  std::vector<bool> charged(devices_->size(), false);
  EDGEADMM_TRY(store.ForEachLatestLedger(
      [&](const std::string& scope, std::vector<double> rdp) -> Status {
        // Per-party ledgers (party_ledger.h) are not this book's.
        if (StartsWith(scope, PartyLedger::kPrefix)) return Status::Ok();
        if (rdp.size() != central_.size()) return Status::DataLoss();
        if (scope == kCentralScope) {
          central_ = std::move(rdp);
          return Status::Ok();
        }
        const bool local = StartsWith(scope, kDeviceLocalPrefix);
        const size_t prefix = local ? sizeof(kDeviceLocalPrefix) - 1
                                    : sizeof(kDeviceCentralPrefix) - 1;
        auto it = index.find(scope.substr(prefix));
        if (it == index.end()) return Status::DataLoss();
        curves_.Replace(
            (local ? device_local_ : device_central_)[it->second],
            std::make_shared<const std::vector<double>>(std::move(rdp)));
        charged[it->second] = true;
        return Status::Ok();
      }));
  // A per-participation charge adds the same curve each time: the count is
  // the curve over one charge (at the first order, where it is finite).
  const std::vector<double> one = accountant_->RoundRdp(CentralMechanism(0));
  for (size_t i = 0; i < devices_->size(); ++i) {
    if (!charged[i]) continue;
    device_central_epsilon_[i] =
        central_epsilon_memo_.Epsilon(*device_central_[i]);
    if (participation_ != nullptr && one[0] > 0) {
      participations_[i] = std::llround((*device_central_[i])[0] / one[0]);
    }
  }
  central_epsilon_ = CentralEpsilon(central_, device_central_epsilon_);
  return Status::Ok();
}

double LedgerBook::OwnNoiseMultiplier() const {
  return algorithms::Get(config_->algorithm).OwnNoiseMultiplier(*config_);
}

RoundMechanism LedgerBook::CentralMechanism(size_t m) const {
  // Stored with the round only; the charge is secure_.rdp (the DDG bound).
  if (secure_aggregation()) return {secure_.noise_multiplier, 1.0};
  if (participation_ != nullptr) {
    // The gateway's noise, charged to each participant (docs/privacy.md).
    return {participation_->ParticipationNoiseMultiplier(*config_), 1.0};
  }
  if (trusted_aggregator()) {
    // Only algorithms whose Validate accepts this policy: the gateway's
    // Gaussian on the round's sum at rate q, its ν the algorithm's
    // OwnNoiseMultiplier (with the sum grid's rounding, algorithms/sum_grid.h;
    // the unit says how).
    return {OwnNoiseMultiplier(), config_->q};
  }
  if (config_->policy == privacy::Policy::kParticipationOwnNoise) {
    // Only the device's own noise counts (docs/privacy.md).
    return {OwnNoiseMultiplier(), 1.0};
  }
  // Participation: the m_k accepted uploads' noises add up, less the t that
  // colluding devices of the cohort know: ν·√(m_k − t) (docs/privacy.md,
  // "Colluding devices").
  return {privacy::ParticipationNoiseMultiplier(
              OwnNoiseMultiplier(), m,
              static_cast<uint64_t>(config_->max_colluders)),
          1.0};
}

RoundMechanism LedgerBook::LocalMechanism() const {
  // Trusted-aggregator uploads carry no noise: against the gateway, which
  // sees each of them, nothing is protected (ν = 0 gives ε = +inf).
  if (trusted_aggregator()) return {0.0, 1.0};
  // Local DP of one participation: replace-one doubles the zero-out
  // sensitivity (4λC, 2C, 2 S1/(ρ + 1/η_k)) with the same own noise.
  return {OwnNoiseMultiplier() / 2, 1.0};
}

double LedgerBook::CentralEpsilon(const std::vector<double>& central,
                                  const std::vector<double>& device_epsilon) {
  if (one_central_curve()) return central_epsilon_memo_.Epsilon(central);
  return device_epsilon.empty()
             ? 0.0
             : *std::max_element(device_epsilon.begin(), device_epsilon.end());
}

namespace {

// "the central ledger of device d (against release observers) would reach
// epsilon 8.12, above privacy.central_budget 8".
std::string BudgetReason(const std::string& ledger, const char* observer,
                         double epsilon, const char* key, double budget) {
  char text[256];
  std::snprintf(text, sizeof(text),
                "%s (against %s) would reach epsilon %.4g, above "
                "privacy.%s %.4g",
                ledger.c_str(), observer, epsilon, key, budget);
  return text;
}

}  // namespace

bool LedgerBook::WithinBudget(std::string* reason) {
  const jobs::JobConfig& c = *config_;
  if (one_central_curve()) {
    std::vector<double> next = central_;
    ComposeRdp(next, worst_central_rdp_);
    const double epsilon = central_epsilon_memo_.Epsilon(next);
    const bool central_binds = c.central_budget <= c.device_budget;
    const double budget = central_binds ? c.central_budget : c.device_budget;
    if (epsilon <= budget) return true;
    if (reason != nullptr) {
      *reason = BudgetReason("the central ledger", "release observers", epsilon,
                             central_binds ? "central_budget" : "device_budget",
                             budget);
    }
    return false;
  }
  // Only devices whose ledger changed since the last check are reconverted
  // (into one buffer: no allocation per device).
  std::vector<double> next;
  for (size_t i = 0; i < devices_->size(); ++i) {
    if (std::isnan(budget_central_[i])) {
      next = *device_central_[i];
      ComposeRdp(next, worst_central_rdp_);
      budget_central_[i] = central_epsilon_memo_.Epsilon(next);
    }
    if (std::isnan(budget_local_[i])) {
      next = *device_local_[i];
      ComposeRdp(next, local_rdp_);
      budget_local_[i] = epsilon_.Epsilon(next);
    }
    // A device at its participation cap is not sampled again.
    if (!(budget_central_[i] <= c.central_budget) &&
        !ParticipationCapReached(i)) {
      if (reason != nullptr) {
        *reason = BudgetReason(
            "the central ledger of device " + (*devices_)[i],
            secure_aggregation() ? "the gateway and max_colluders devices"
                                 : "release observers",
            budget_central_[i], "central_budget", c.central_budget);
      }
      return false;
    }
    // Trusted-aggregator uploads are noiseless: their local ledger is +inf
    // by definition and not a budget the job can meet.
    if (!trusted_aggregator() && !(budget_local_[i] <= c.device_budget)) {
      if (reason != nullptr) {
        *reason = BudgetReason("the local ledger of device " + (*devices_)[i],
                               "the gateway", budget_local_[i], "device_budget",
                               c.device_budget);
      }
      return false;
    }
  }
  return true;
}

LedgerCharge LedgerBook::Plan(const std::vector<size_t>& participants) {
  LedgerCharge charge;
  charge.central = CentralMechanism(participants.size());
  // Every survivor of a secure round is charged the DDG sum; the local
  // curve when the algorithm charges it as central.
  const std::vector<double> central_rdp =
      secure_aggregation()          ? secure_.rdp
      : upload_central_rdp_.empty() ? accountant_->RoundRdp(charge.central)
                                    : upload_central_rdp_;
  // Only the participants' ledgers are copied: copying all n of them per
  // round was a large share of the round's allocations.
  charge.next_device_epsilon = device_central_epsilon_;
  if (one_central_curve()) {
    charge.next_central = central_;
    ComposeRdp(charge.next_central, central_rdp);
  } else {
    charge.devices.reserve(participants.size());
    // Participants that held the same curve get the same next one.
    std::unordered_map<const std::vector<double>*, SharedCurves::Curve> next;
    for (size_t index : participants) {
      SharedCurves::Curve& composed = next[device_central_[index].get()];
      if (composed == nullptr) {
        composed = SharedCurves::Composed(device_central_[index], central_rdp);
      }
      LedgerCharge::Device device{index, composed, 0.0};
      device.central_epsilon = central_epsilon_memo_.Epsilon(*device.central);
      charge.next_device_epsilon[index] = device.central_epsilon;
      charge.devices.push_back(std::move(device));
    }
  }
  charge.central_epsilon =
      CentralEpsilon(charge.next_central, charge.next_device_epsilon);
  return charge;
}

std::vector<LedgerRowRef> LedgerBook::Rows(const LedgerCharge& charge) const {
  std::vector<LedgerRowRef> rows;
  if (one_central_curve()) {
    rows.push_back({kCentralScope, nullptr, &charge.next_central,
                    charge.central_epsilon, central_conversion_name()});
    return rows;
  }
  rows.reserve(charge.devices.size() + 1);
  for (const LedgerCharge::Device& device : charge.devices) {
    rows.push_back({kDeviceCentralPrefix, &(*devices_)[device.index],
                    device.central.get(), device.central_epsilon,
                    central_conversion_name()});
  }
  // The central row carries the worst device's curve.
  const std::vector<double>& eps = charge.next_device_epsilon;
  const size_t worst = static_cast<size_t>(
      std::max_element(eps.begin(), eps.end()) - eps.begin());
  const std::vector<double>* worst_curve = device_central_[worst].get();
  for (const LedgerCharge::Device& device : charge.devices) {
    if (device.index == worst) worst_curve = device.central.get();
  }
  rows.push_back({kCentralScope, nullptr, worst_curve, charge.central_epsilon,
                  central_conversion_name()});
  return rows;
}

void LedgerBook::Apply(LedgerCharge&& charge) {
  if (one_central_curve()) central_ = std::move(charge.next_central);
  device_central_epsilon_ = std::move(charge.next_device_epsilon);
  for (LedgerCharge::Device& device : charge.devices) {
    ++participations_[device.index];
    curves_.Replace(device_central_[device.index], std::move(device.central));
    budget_central_[device.index] = std::nan("");
  }
  central_epsilon_ = charge.central_epsilon;
}

LedgerCharge LedgerBook::Unchanged(size_t participants) const {
  LedgerCharge charge;
  charge.central = CentralMechanism(participants);
  charge.next_central = central_;
  charge.next_device_epsilon = device_central_epsilon_;
  charge.central_epsilon = central_epsilon_;
  return charge;
}

LocalCharge LedgerBook::PlanLocal(size_t index) {
  LocalCharge charge{
      index, SharedCurves::Composed(device_local_[index], local_rdp_), 0.0};
  charge.epsilon = epsilon_.Epsilon(*charge.local);
  return charge;
}

LedgerRowRef LedgerBook::LocalRow(const LocalCharge& charge) const {
  return {kDeviceLocalPrefix, &(*devices_)[charge.index], charge.local.get(),
          charge.epsilon, local_conversion_name()};
}

void LedgerBook::ApplyLocal(LocalCharge&& charge) {
  curves_.Replace(device_local_[charge.index], std::move(charge.local));
  budget_local_[charge.index] = std::nan("");
}

void LedgerBook::SetLifetime(registry::LifetimeLedger ledger, size_t index,
                             Lifetime lifetime) {
  this->lifetime(ledger).insert_or_assign(index, std::move(lifetime));
}

std::vector<double> LedgerBook::NextJobCurve(registry::LifetimeLedger ledger,
                                             size_t index) const {
  if (ledger == registry::LifetimeLedger::kLocal) {
    std::vector<double> next = *device_local_[index];
    ComposeRdp(next, local_rdp_);
    return next;
  }
  // Trusted-aggregator charges its one central curve to every device.
  std::vector<double> next =
      one_central_curve() ? central_ : *device_central_[index];
  ComposeRdp(next, worst_central_rdp_);
  return next;
}

double LedgerBook::NextLifetimeEpsilon(registry::LifetimeLedger ledger,
                                       size_t index) const {
  const auto& budgets = lifetime(ledger);
  const auto it = budgets.find(index);
  if (it == budgets.end()) return 0;
  std::vector<double> next = it->second.earlier;
  ComposeRdp(next, NextJobCurve(ledger, index));
  return it->second.filter.Spent(next);
}

bool LedgerBook::LifetimeAllows(
    size_t index, registry::LifetimeLedger* refused,
    const std::vector<double>* reserved_local,
    const std::vector<double>* reserved_central) const {
  for (const registry::LifetimeLedger ledger :
       {registry::LifetimeLedger::kLocal, registry::LifetimeLedger::kCentral}) {
    const auto& budgets = lifetime(ledger);
    const auto it = budgets.find(index);
    if (it == budgets.end()) continue;
    std::vector<double> next = it->second.earlier;
    ComposeRdp(next, NextJobCurve(ledger, index));
    const std::vector<double>* reserved =
        ledger == registry::LifetimeLedger::kLocal ? reserved_local
                                                   : reserved_central;
    if (reserved != nullptr && reserved->size() == next.size()) {
      ComposeRdp(next, *reserved);
    }
    if (!it->second.filter.Admits(next)) {
      if (refused != nullptr) *refused = ledger;
      return false;
    }
  }
  return true;
}

double LedgerBook::LocalEpsilon(size_t device) {
  return epsilon_.Epsilon(*device_local_[device]);
}

}  // namespace edgeadmm::rounds
