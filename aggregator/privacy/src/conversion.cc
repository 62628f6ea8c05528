#include "edgeadmm/privacy/conversion.h"

#include <algorithm>
#include <cmath>

#include "checks.h"

namespace edgeadmm::privacy {

const char* ConversionName(Conversion conversion) {
  switch (conversion) {
    case Conversion::kClassic:
      return "classic";
    case Conversion::kImproved:
      return "improved";
    case Conversion::kPld:
      return "pld";
  }
  return "?";
}

const char* ConversionReference(Conversion conversion) {
  switch (conversion) {
    case Conversion::kClassic:
      return "Mironov 2017 Prop. 3";
    case Conversion::kImproved:
      return "Canonne-Kamath-Steinke 2020 Prop. 12 / Asoodeh et al. 2021";
    case Conversion::kPld:
      return "privacy-loss distribution of the charged schedule (Dong-Roth-Su "
             "2022 Cor. 3.3; Koskela et al. 2020; Doroshenko et al. 2022), "
             "never above the improved RDP conversion";
  }
  return "?";
}

host::ErrorOr<Conversion> ParseConversion(const std::string& name) {
  if (name == "classic") return Conversion::kClassic;
  if (name == "improved") return Conversion::kImproved;
  if (name == "pld") return Conversion::kPld;
  return host::Error::InvalidArgument("unknown conversion '" + name +
                                      "' (expected classic, improved or pld)");
}

namespace {

host::Error NotAnRdpConversion() {
  return host::Error::InvalidArgument(
      "pld is not an RDP conversion (use the PLD accountant)");
}

}  // namespace

host::ErrorOr<ConvertedEpsilon> EpsilonFromRdp(const RdpCurve& curve,
                                               double delta,
                                               Conversion conversion) {
  if (conversion == Conversion::kPld) return NotAnRdpConversion();
  EDGEADMM_HOST_TRY(internal::CheckOpenUnit("delta", delta));
  const double log_delta = std::log(delta);
  ConvertedEpsilon best{INFINITY, curve.grid()[0]};
  for (size_t i = 0; i < curve.size(); ++i) {
    const double a = curve.grid()[i];
    double eps = 0.0;
    if (conversion == Conversion::kClassic) {
      eps = curve[i] - log_delta / (a - 1.0);
    } else {
      eps = curve[i] + std::log1p(-1.0 / a) -
            (log_delta + std::log(a)) / (a - 1.0);
    }
    if (eps < best.epsilon) best = {eps, a};
  }
  best.epsilon = std::max(best.epsilon, 0.0);
  return best;
}

host::ErrorOr<ConvertedDelta> DeltaFromRdp(const RdpCurve& curve,
                                           double epsilon,
                                           Conversion conversion) {
  if (conversion == Conversion::kPld) return NotAnRdpConversion();
  if (!(epsilon >= 0.0) || !std::isfinite(epsilon)) {
    return host::Error::InvalidArgument(
        internal::Describe("epsilon", "finite and >= 0", epsilon));
  }
  ConvertedDelta best{1.0, curve.grid()[0]};
  double best_log = 0.0;
  for (size_t i = 0; i < curve.size(); ++i) {
    const double a = curve.grid()[i];
    double log_delta = (a - 1.0) * (curve[i] - epsilon);
    if (conversion == Conversion::kImproved) {
      log_delta += (a - 1.0) * std::log1p(-1.0 / a) - std::log(a);
    }
    if (log_delta < best_log) {
      best_log = log_delta;
      best = {std::exp(log_delta), a};
    }
  }
  return best;
}

}  // namespace edgeadmm::privacy
