#include "edgeadmm/privacy/subsampled_gaussian_pld.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "checks.h"

namespace edgeadmm::privacy {
namespace {

// Standard normal CDF and survival function, accurate in both tails.
double NormalCdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }
double NormalSf(double x) { return 0.5 * std::erfc(x / std::sqrt(2.0)); }

// log(mu1(x) / mu0(x)) = log(1 - q + q e^{(2x - 1) / (2 nu^2)}).
double RemoveLoss(double q, double nu, double x) {
  const double t = (2.0 * x - 1.0) / (2.0 * nu * nu);
  if (q == 1.0) return t;
  return internal::LogAddExp(std::log1p(-q), std::log(q) + t);
}

// The x where the remove loss equals l, i.e. where
// e^{(2x-1)/(2 nu^2)} = (e^l - 1 + q) / q. Requires e^l > 1 - q.
double XAtRemoveLoss(double q, double nu, double l) {
  return 0.5 + nu * nu * (std::log(std::expm1(l) + q) - std::log(q));
}

}  // namespace

const char* PldDirectionName(PldDirection direction) {
  return direction == PldDirection::kRemove ? "remove" : "add";
}

host::ErrorOr<double> SubsampledGaussianDelta(double q, double nu,
                                              PldDirection direction,
                                              double epsilon) {
  EDGEADMM_HOST_TRY(internal::CheckRate("q", q));
  EDGEADMM_HOST_TRY(internal::CheckPositive("noise multiplier", nu));
  const double e = std::exp(epsilon);
  if (direction == PldDirection::kRemove) {
    // L > eps  <=>  x > x*(eps); always when e^eps <= 1 - q.
    if (q < 1.0 && std::expm1(epsilon) + q <= 0.0) return -std::expm1(epsilon);
    const double x = XAtRemoveLoss(q, nu, epsilon);
    const double p =
        (1.0 - q) * NormalSf(x / nu) + q * NormalSf((x - 1.0) / nu);
    const double r = NormalSf(x / nu);
    return std::max(0.0, p - e * r);
  }
  // Add: L = -remove loss > eps  <=>  remove loss < -eps  <=>  x < x*(-eps);
  // never when e^{-eps} <= 1 - q.
  if (q < 1.0 && std::expm1(-epsilon) + q <= 0.0) return 0.0;
  const double x = XAtRemoveLoss(q, nu, -epsilon);
  const double p = NormalCdf(x / nu);
  const double r =
      (1.0 - q) * NormalCdf(x / nu) + q * NormalCdf((x - 1.0) / nu);
  return std::max(0.0, p - e * r);
}

host::ErrorOr<PrivacyLossDistribution> SubsampledGaussianPld(
    double q, double nu, PldDirection direction, double step,
    double tail_mass) {
  EDGEADMM_HOST_TRY(internal::CheckRate("q", q));
  EDGEADMM_HOST_TRY(internal::CheckPositive("noise multiplier", nu));
  EDGEADMM_HOST_TRY(internal::CheckPositive("PLD step", step));
  EDGEADMM_HOST_TRY(internal::CheckOpenUnit("tail mass", tail_mass));
  // Phi-bar(z) <= e^{-z^2/2} / 2 <= tail_mass for this z.
  const double z = std::sqrt(2.0 * std::log(1.0 / tail_mass));
  // Range of x holding all but tail_mass of P (both components), mapped
  // through the monotone loss.
  const double x_lo = -z * nu;
  const double x_hi = 1.0 + z * nu;
  double l_lo = 0.0, l_hi = 0.0;
  if (direction == PldDirection::kRemove) {
    l_lo = RemoveLoss(q, nu, x_lo);
    l_hi = RemoveLoss(q, nu, x_hi);
  } else {
    // P = mu0: x in [-z nu, z nu]; the loss decreases in x.
    l_lo = -RemoveLoss(q, nu, z * nu);
    l_hi = -RemoveLoss(q, nu, -z * nu);
  }
  EDGEADMM_HOST_TRY(CheckPldBins("one-release PLD", (l_hi - l_lo) / step + 3));
  const int64_t k_lo = static_cast<int64_t>(std::floor(l_lo / step)) - 1;
  const int64_t k_hi = static_cast<int64_t>(std::ceil(l_hi / step)) + 1;
  const size_t m = static_cast<size_t>(k_hi - k_lo);  // index of the top
  std::vector<double> d(m + 1);
  for (size_t i = 0; i <= m; ++i) {
    EDGEADMM_HOST_TRY_ASSIGN(
        d[i], SubsampledGaussianDelta(
                  q, nu, direction,
                  step * static_cast<double>(k_lo + static_cast<int64_t>(i))));
  }
  // Connect the dots (Doroshenko et al. 2022): see the header.
  const double eh = std::exp(step);
  const double em1 = std::expm1(step);
  std::vector<double> pmf(m + 1, 0.0);
  double finite = 0.0;
  for (size_t j = 1; j <= m; ++j) {
    const double above = j < m ? d[j] - d[j + 1] : 0.0;
    const double p = (eh * (d[j - 1] - d[j]) - above) / em1;
    pmf[j] = std::max(0.0, p);  // negative only by round-off
    finite += pmf[j];
  }
  const double infinity_mass = d[m];
  pmf[0] = std::max(0.0, 1.0 - infinity_mass - finite);
  return PrivacyLossDistribution::Create(step, k_lo, std::move(pmf),
                                         infinity_mass);
}

}  // namespace edgeadmm::privacy
