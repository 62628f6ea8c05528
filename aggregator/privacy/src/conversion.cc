#include "edgeadmm/privacy/conversion.h"

#include <algorithm>
#include <cmath>

#include "checks.h"

namespace edgeadmm::privacy {

const char* ConversionName(Conversion conversion) {
  return conversion == Conversion::kClassic ? "classic" : "improved";
}

const char* ConversionReference(Conversion conversion) {
  return conversion == Conversion::kClassic
             ? "Mironov 2017 Prop. 3"
             : "Canonne-Kamath-Steinke 2020 Prop. 12 / Asoodeh et al. 2021";
}

host::ErrorOr<Conversion> ParseConversion(const std::string& name) {
  if (name == "classic") return Conversion::kClassic;
  if (name == "improved") return Conversion::kImproved;
  return host::Error::InvalidArgument("unknown conversion '" + name +
                                      "' (expected classic or improved)");
}

host::ErrorOr<ConvertedEpsilon> EpsilonFromRdp(const RdpCurve& curve,
                                               double delta,
                                               Conversion conversion) {
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
