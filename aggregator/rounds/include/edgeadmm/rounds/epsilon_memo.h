// EpsilonMemo: ε of RDP curves at one δ, remembered per curve.
//
// The round engine converts every participant's two ledgers at each commit
// and again (after one more worst-case round) at the next budget check:
// about 400 conversions per round of 100, 10 % of the bookkeeping
// instructions (docs/aggregator.md, "Benchmark"). Many of those curves are
// equal bit for bit: devices with the same history of rounds carry the same
// ledger, and a device's local ledger after a commit is the curve the
// previous budget check already converted. The conversion is a pure function
// of the curve, so a remembered result is the result.
#pragma once

#include <cstddef>
#include <unordered_map>
#include <vector>

#include "edgeadmm/rounds/curve_bytes.h"
#include "edgeadmm/rounds/round_accountant.h"

namespace edgeadmm::rounds {

class EpsilonMemo {
 public:
  // Curves remembered at most; when full the memo starts over (a bound on
  // memory: 1024 curves of 156 orders are 1.3 MB).
  static constexpr size_t kMaxCurves = 1024;

  // `accountant` must outlive the memo.
  EpsilonMemo(const RoundAccountant& accountant, double delta)
      : accountant_(&accountant), delta_(delta) {}

  // accountant.Epsilon(rdp, delta), converted once per distinct curve.
  double Epsilon(const std::vector<double>& rdp);

  // How many conversions reached the accountant (tests, profiles).
  size_t conversions() const { return conversions_; }

 private:
  const RoundAccountant* accountant_;
  double delta_;
  std::unordered_map<std::vector<double>, double, CurveBytes, CurveBytes>
      epsilon_;
  size_t conversions_ = 0;
};

}  // namespace edgeadmm::rounds
