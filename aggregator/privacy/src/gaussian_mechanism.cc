#include "edgeadmm/privacy/gaussian_mechanism.h"

#include <cmath>

#include "checks.h"
#include "edgeadmm/privacy/subsampled_gaussian_pld.h"

namespace edgeadmm::privacy {

host::ErrorOr<double> GaussianRdp(double alpha, double noise_multiplier) {
  EDGEADMM_HOST_TRY(internal::CheckOrder(alpha));
  EDGEADMM_HOST_TRY(
      internal::CheckPositive("noise multiplier", noise_multiplier));
  return alpha / (2.0 * noise_multiplier * noise_multiplier);
}

host::ErrorOr<double> GaussianEpsilon(double noise_multiplier, double delta) {
  EDGEADMM_HOST_TRY(
      internal::CheckPositive("noise multiplier", noise_multiplier));
  EDGEADMM_HOST_TRY(internal::CheckOpenUnit("delta", delta));
  // delta(eps) decreases in eps; the Gaussian's two directions are equal.
  auto delta_at = [&](double eps) {
    return SubsampledGaussianDelta(1.0, noise_multiplier, PldDirection::kRemove,
                                   eps);
  };
  EDGEADMM_HOST_TRY_ASSIGN(const double at_zero, delta_at(0.0));
  if (at_zero <= delta) return 0.0;
  double lo = 0.0;
  double hi = 1.0;
  while (true) {
    EDGEADMM_HOST_TRY_ASSIGN(const double d, delta_at(hi));
    if (d <= delta) break;
    lo = hi;
    hi *= 2.0;
    if (!std::isfinite(hi)) return hi;
  }
  // Invariant: delta(lo) > delta >= delta(hi); hi is returned.
  for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    EDGEADMM_HOST_TRY_ASSIGN(const double d, delta_at(mid));
    (d <= delta ? hi : lo) = mid;
  }
  return hi;
}

}  // namespace edgeadmm::privacy
