#include "edgeadmm/privacy/pld_calibration.h"

#include <cmath>

#include "checks.h"
#include "log_bisection.h"

namespace edgeadmm::privacy {
namespace {

host::ErrorOr<double> PldEpsilonAt(double q, uint64_t rounds, double nu,
                                   double delta, const PldOptions& options) {
  PldAccountant accountant(options);
  EDGEADMM_HOST_TRY(accountant.Compose(q, nu, rounds));
  return accountant.Epsilon(delta);
}

}  // namespace

host::ErrorOr<PldCalibration> CalibratePldNoiseMultiplier(
    double q, uint64_t rounds, double epsilon, double delta, double upper,
    const PldOptions& options) {
  EDGEADMM_HOST_TRY(internal::CheckRate("q", q));
  EDGEADMM_HOST_TRY(internal::CheckPositive("target epsilon", epsilon));
  EDGEADMM_HOST_TRY(internal::CheckOpenUnit("delta", delta));
  EDGEADMM_HOST_TRY(internal::CheckPositive("upper noise multiplier", upper));
  if (rounds == 0) return host::Error::InvalidArgument("rounds must be >= 1");
  EDGEADMM_HOST_TRY_ASSIGN(double hi_eps,
                           PldEpsilonAt(q, rounds, upper, delta, options));
  if (hi_eps > epsilon) {
    return host::Error::OutOfRange(
        "the starting noise multiplier does not meet the target epsilon");
  }
  double hi = upper;
  double lo = upper;
  // Walk down until the target is missed (the bracket's lower end).
  while (true) {
    lo = hi / 1.25;
    if (lo < 0.05) {
      return host::Error::OutOfRange(
          "the target needs a noise multiplier below 0.05");
    }
    EDGEADMM_HOST_TRY_ASSIGN(const double e,
                             PldEpsilonAt(q, rounds, lo, delta, options));
    if (e > epsilon) break;
    hi = lo;
    hi_eps = e;
  }
  EDGEADMM_HOST_TRY_ASSIGN(
      hi,
      internal::LogBisect(lo, hi, 1e-4, [&](double mid) -> host::ErrorOr<bool> {
        EDGEADMM_HOST_TRY_ASSIGN(const double e,
                                 PldEpsilonAt(q, rounds, mid, delta, options));
        if (e > epsilon) return false;
        hi_eps = e;
        return true;
      }));
  return PldCalibration{hi, hi_eps};
}

}  // namespace edgeadmm::privacy
