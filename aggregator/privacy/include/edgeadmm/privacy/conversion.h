// RDP -> (epsilon, delta)-DP conversions, minimised over the order grid.
//
// Classic (Mironov 2017, Prop. 3):
//   eps = min_alpha RDP(alpha) + log(1/delta) / (alpha - 1).
// Improved (Canonne, Kamath, Steinke 2020, Prop. 12; Asoodeh et al. 2021):
//   eps = min_alpha RDP(alpha) + log1p(-1/alpha)
//                   - (log(delta) + log(alpha)) / (alpha - 1),
// never larger than the classic one at any order (the difference
// log(1 - 1/alpha) - log(alpha)/(alpha - 1) is negative for alpha > 1).
// Delta for a given epsilon inverts the same inequalities:
//   classic   log delta = (alpha - 1)(RDP - eps)
//   improved  log delta = (alpha - 1)(RDP - eps) + (alpha - 1) log(1 - 1/alpha)
//                         - log(alpha).
#pragma once

#include <cstdint>
#include <string>

#include "edgeadmm/host/error.h"
#include "edgeadmm/privacy/rdp_curve.h"

namespace edgeadmm::privacy {

// kPld is not an RDP conversion: it labels an epsilon read off the
// privacy-loss distribution of the schedule a ledger charged (the daemon's
// central ledgers, rounds/pld_round_accountant.h). EpsilonFromRdp and
// DeltaFromRdp refuse it.
enum class Conversion : uint8_t { kClassic = 0, kImproved = 1, kPld = 2 };

// "classic", "improved" or "pld".
const char* ConversionName(Conversion conversion);
// Inverse of ConversionName. INVALID_ARGUMENT for another name.
host::ErrorOr<Conversion> ParseConversion(const std::string& name);

// The citation of a conversion, for reports.
const char* ConversionReference(Conversion conversion);

struct ConvertedEpsilon {
  double epsilon = 0.0;
  double order = 0.0;  // the minimising order
};

struct ConvertedDelta {
  double delta = 0.0;
  double order = 0.0;
};

// Smallest epsilon over the grid for this delta. INVALID_ARGUMENT when delta
// is not in (0, 1). An all-infinite curve gives epsilon = +inf.
host::ErrorOr<ConvertedEpsilon> EpsilonFromRdp(const RdpCurve& curve,
                                               double delta,
                                               Conversion conversion);

// Smallest delta (capped at 1) over the grid for this epsilon.
// INVALID_ARGUMENT when epsilon is negative or not finite.
host::ErrorOr<ConvertedDelta> DeltaFromRdp(const RdpCurve& curve,
                                           double epsilon,
                                           Conversion conversion);

}  // namespace edgeadmm::privacy
