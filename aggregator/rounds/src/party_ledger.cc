#include "edgeadmm/rounds/party_ledger.h"

#include <utility>

namespace edgeadmm::rounds {

PartyLedger::PartyLedger(const std::vector<std::string>& devices, double delta)
    : devices_(&devices),
      delta_(delta),
      accountant_(privacy::Conversion::kImproved, DeviceLedgerGrid()),
      curves_(devices.size()) {}

Status PartyLedger::Load(RoundStore& store,
                         const std::unordered_map<std::string, size_t>& index) {
  constexpr size_t kPrefixLength = sizeof(kPrefix) - 1;
  return store.ForEachLatestLedger(
      [&](const std::string& scope, std::vector<double> rdp) -> Status {
        if (scope.compare(0, kPrefixLength, kPrefix) != 0) return Status::Ok();
        if (rdp.size() != order_count()) return Status::DataLoss();
        auto it = index.find(scope.substr(kPrefixLength));
        if (it == index.end()) return Status::DataLoss();
        curves_[it->second] = std::move(rdp);
        return Status::Ok();
      });
}

PartyCharge PartyLedger::Plan(size_t index, double noise_multiplier) const {
  PartyCharge charge{index, curves_[index], 0.0};
  if (charge.curve.empty()) charge.curve.assign(order_count(), 0.0);
  // One Gaussian mechanism: ε_α = α/(2ν²) (Mironov 2017, Prop. 7), +inf
  // for ν = 0; composition adds the curves.
  ComposeRdp(charge.curve, accountant_.RoundRdp({noise_multiplier, 1.0}));
  charge.epsilon = Epsilon(charge.curve);
  return charge;
}

LedgerRowRef PartyLedger::Row(const PartyCharge& charge,
                              const ReportedLedger* reported) const {
  LedgerRowRef row{kPrefix, &(*devices_)[charge.index], &charge.curve,
                   charge.epsilon,
                   privacy::ConversionName(accountant_.conversion())};
  row.reported = reported;
  return row;
}

void PartyLedger::Apply(PartyCharge&& charge) {
  curves_[charge.index] = std::move(charge.curve);
}

}  // namespace edgeadmm::rounds
