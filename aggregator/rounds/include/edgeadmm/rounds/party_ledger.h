// PartyLedger: the gateway's per-party ledgers of a job whose algorithm has
// them (PartyPrivacy::PartyMechanism; docs/privacy.md, the algorithm's
// section). Scope "party:<id>", one RDP
// curve per party, composed by addition (Mironov 2017, Prop. 1), charged
// when the gateway accepts the party's upload (it saw it whatever becomes of
// the round). The curves live on the device ledger's order grid
// (DevicePrivacyLedger::kOrders) and are converted with the improved bound
// at the job's δ, so a party's ε is the number its own DevicePrivacyLedger
// computes for the same charges. Each row also keeps what the device
// reported with that upload (Update.ledger).
#pragma once

#include <cstddef>
#include <string>
#include <unordered_map>
#include <vector>

#include "edgeadmm/result.h"
#include "edgeadmm/rounds/round_accountant.h"
#include "edgeadmm/rounds/round_store.h"
#include "edgeadmm/rounds/upload.h"

namespace edgeadmm::rounds {

// One accepted upload's charge to its party's ledger.
struct PartyCharge {
  size_t index = 0;
  std::vector<double> curve;  // the party's curve after the upload
  double epsilon = 0;         // at `delta`; +inf for an uncovered release
};

class PartyLedger {
 public:
  static constexpr char kPrefix[] = "party:";

  // Empty ledgers for `devices` (index = position), converted at `delta`.
  // `devices` must outlive the ledger.
  PartyLedger(const std::vector<std::string>& devices, double delta);

  // Restores the newest "party:" curve of every party. DATA_LOSS for a curve
  // of the wrong length or a scope naming a device not in the job.
  Status Load(RoundStore& store,
              const std::unordered_map<std::string, size_t>& index);

  // The charge of one more Gaussian of noise multiplier ν (noise std /
  // sensitivity; 0: no noise, +inf at every order) to party `index`.
  // Changes nothing until Apply.
  PartyCharge Plan(size_t index, double noise_multiplier) const;
  // Its store row (pointers into `charge`, `reported` and the ledger).
  LedgerRowRef Row(const PartyCharge& charge,
                   const ReportedLedger* reported) const;
  void Apply(PartyCharge&& charge);

  // The ε of a curve on this ledger's grid at `delta` (improved RDP
  // conversion; +inf above the sampler-tails cap or for an unusable curve).
  double Epsilon(const std::vector<double>& curve) const {
    return accountant_.Epsilon(curve, delta_);
  }
  size_t order_count() const { return accountant_.order_count(); }

 private:
  const std::vector<std::string>* devices_;
  double delta_;
  PrivacyRoundAccountant accountant_;
  std::vector<std::vector<double>> curves_;  // empty: never charged
};

}  // namespace edgeadmm::rounds
