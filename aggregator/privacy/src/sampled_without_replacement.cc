#include "edgeadmm/privacy/sampled_without_replacement.h"

#include <algorithm>
#include <cmath>

#include "checks.h"
#include "edgeadmm/privacy/rdp_orders.h"

namespace edgeadmm::privacy {
namespace {

// K(n) = log(1 + ...) of WBK19 Thm. 9 for integer n >= 2 and the Gaussian.
double WbkCumulant(double gamma, double z, int n) {
  const double two_z2 = 2.0 * z * z;
  const double log_gamma = std::log(gamma);
  // j = 2: gamma^2 C(n,2) min{4 (e^{eps(2)} - 1), 2 e^{eps(2)}}.
  const double eps2 = 2.0 / two_z2;
  const double log_min2 =
      std::min(std::log(4.0) + internal::LogExpm1(eps2), std::log(2.0) + eps2);
  double log_sum = 2.0 * log_gamma + internal::LogBinomial(n, 2) + log_min2;
  for (int j = 3; j <= n; ++j) {
    const double jd = j;
    const double term = jd * log_gamma + internal::LogBinomial(n, jd) +
                        (jd - 1.0) * (jd / two_z2) + std::log(2.0);
    log_sum = internal::LogAddExp(log_sum, term);
  }
  return internal::Log1pExp(log_sum);
}

}  // namespace

host::ErrorOr<double> WithoutReplacementGaussianRdp(double gamma,
                                                    double noise_multiplier,
                                                    double alpha) {
  EDGEADMM_HOST_TRY(internal::CheckRate("sampling ratio m/n", gamma));
  EDGEADMM_HOST_TRY(
      internal::CheckPositive("noise multiplier", noise_multiplier));
  EDGEADMM_HOST_TRY(internal::CheckOrder(alpha));
  const double z = noise_multiplier;
  const double unsampled = alpha / (2.0 * z * z);
  double cumulant = 0.0;
  if (IsIntegerOrder(alpha)) {
    cumulant = WbkCumulant(gamma, z, static_cast<int>(std::lround(alpha)));
  } else {
    const int below = static_cast<int>(std::floor(alpha));
    const int above = below + 1;
    const double k_below = below >= 2 ? WbkCumulant(gamma, z, below) : 0.0;
    const double k_above = WbkCumulant(gamma, z, above);
    cumulant = (above - alpha) * k_below + (alpha - below) * k_above;
  }
  return std::min(unsampled, cumulant / (alpha - 1.0));
}

}  // namespace edgeadmm::privacy
