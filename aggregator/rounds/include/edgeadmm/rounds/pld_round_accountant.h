// PldRoundAccountant: ε of the daemon's central ledgers from the privacy-loss
// distribution (PLD) of the schedule they charged, never above the RDP
// conversion of the same curve (docs/privacy.md, "The job's accountant").
//
// The ledgers keep RDP curves (composition = addition, stored per row), so
// the schedule is read back from the curve, where the book's rules make it
// unambiguous:
//  - a participation central ledger charges only Gaussian rounds (q = 1,
//    ν_k = ν·√m_k): its curve is α·μ²/2 with μ² = Σ 1/ν_k², and the
//    composition is exactly μ-GDP (Dong, Roth, Su 2022, Cor. 3.3; adaptive
//    ν_k: Smith & Thakurta 2022), whose ε(δ) is the analytic Gaussian curve
//    (privacy::GaussianEpsilon);
//  - a trusted-aggregator central ledger charges k rounds of one Poisson-
//    subsampled Gaussian (q, ν): its curve is k times that round's, and its
//    ε comes from privacy::PldAccountant (connect the dots + FFT).
// A curve that is neither is converted by RDP alone. The result is the
// smaller of the PLD and the RDP (improved) ε: both are upper bounds.
#pragma once

#include <vector>

#include "edgeadmm/privacy/pld_accountant.h"
#include "edgeadmm/rounds/round_accountant.h"

namespace edgeadmm::rounds {

class PldRoundAccountant final : public RoundAccountant {
 public:
  // `rdp` supplies the orders, the per-round curves and the RDP conversion
  // (it must outlive this). `subsampled`: the one Poisson-subsampled round a
  // central ledger of this job may charge (q < 1); ignored when q >= 1.
  PldRoundAccountant(const RoundAccountant& rdp, RoundMechanism subsampled,
                     privacy::PldOptions options = {});

  const std::vector<double>& orders() const override { return rdp_->orders(); }
  std::vector<double> RoundRdp(const RoundMechanism& m) const override {
    return rdp_->RoundRdp(m);
  }
  // min(PLD ε of the recognised schedule, RDP ε); +inf above
  // DevicePrivacyLedger::kMaxReportableEpsilon like the RDP accountant.
  double Epsilon(const std::vector<double>& rdp, double delta) const override;
  privacy::Conversion conversion() const override {
    return privacy::Conversion::kPld;
  }

  // The PLD ε alone: +inf when the curve is not a recognised schedule.
  double ScheduleEpsilon(const std::vector<double>& rdp, double delta) const;

 private:
  const RoundAccountant* rdp_;
  RoundMechanism subsampled_;
  std::vector<double> subsampled_rdp_;  // empty unless q < 1
  privacy::PldOptions options_;
};

}  // namespace edgeadmm::rounds
