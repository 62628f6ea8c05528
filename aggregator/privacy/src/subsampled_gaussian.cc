#include "edgeadmm/privacy/subsampled_gaussian.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "checks.h"
#include "edgeadmm/privacy/rdp_orders.h"

namespace edgeadmm::privacy {
namespace {

Error CheckArguments(double q, double z, double alpha) {
  EDGEADMM_PRIVACY_TRY(internal::CheckRate("sampling rate q", q));
  EDGEADMM_PRIVACY_TRY(internal::CheckPositive("noise multiplier", z));
  return internal::CheckOrder(alpha);
}

// log f(X) with f(X) = (1 + X)^alpha - 1 - alpha X >= 0, given u with
// X = q * expm1(u). Uses the power series for small |X| (no cancellation),
// the direct form in between and the dominant term when (1 + X)^alpha is
// astronomically large.
double LogExcess(double alpha, double q, double log_q, double u) {
  double x = 0.0;
  double log_x = 0.0;  // valid when x > 0
  double log1p_x = 0.0;
  if (u < 30.0) {
    x = q * std::expm1(u);
    log1p_x = std::log1p(x);
    if (x > 0.0) log_x = std::log(x);
  } else {
    log_x = log_q + u + std::log1p(-std::exp(-u));
    log1p_x = internal::LogAddExp(0.0, log_x);
    x = log_x < 700.0 ? std::exp(log_x) : INFINITY;  // then t >= 40 below
  }
  if (std::fabs(x) < 0.25) {
    // sum_{k>=2} C(alpha, k) x^k, with C(alpha, k+1) = C(alpha,
    // k)(alpha-k)/(k+1).
    double coefficient = alpha * (alpha - 1.0) / 2.0;
    double power = x * x;
    double sum = 0.0;
    for (int k = 2; k < 200; ++k) {
      const double term = coefficient * power;
      sum += term;
      if (std::fabs(term) <= 1e-18 * std::fabs(sum)) break;
      coefficient *= (alpha - k) / (k + 1.0);
      power *= x;
    }
    return sum > 0.0 ? std::log(sum) : -INFINITY;
  }
  const double t = alpha * log1p_x;
  if (t < 40.0) {
    const double f = std::expm1(t) - alpha * x;
    return f > 0.0 ? std::log(f) : -INFINITY;
  }
  // Here x > 0 is large: f = exp(t) (1 - exp(log(1 + alpha x) - t)).
  const double log1p_alpha_x =
      internal::LogAddExp(0.0, std::log(alpha) + log_x);
  return t + std::log1p(-std::exp(log1p_alpha_x - t));
}

}  // namespace

ErrorOr<double> PoissonSubsampledGaussianRdpBinomial(double q,
                                                     double noise_multiplier,
                                                     double alpha) {
  EDGEADMM_PRIVACY_TRY(CheckArguments(q, noise_multiplier, alpha));
  if (!IsIntegerOrder(alpha)) {
    return Error::OutOfRange("the binomial form needs an integer order, got " +
                             std::to_string(alpha));
  }
  const double two_z2 = 2.0 * noise_multiplier * noise_multiplier;
  const int n = static_cast<int>(std::lround(alpha));
  if (q == 1.0) return alpha / two_z2;
  const double log_q = std::log(q);
  const double log_1mq = std::log1p(-q);
  // log(A - 1) = logsumexp_k [log C(n,k) + (n-k) log(1-q) + k log q
  //                           + log(expm1((k^2-k)/(2 z^2)))].
  double log_excess = -INFINITY;
  for (int k = 2; k <= n; ++k) {
    const double kd = k;
    const double term = internal::LogBinomial(n, kd) + (n - kd) * log_1mq +
                        kd * log_q +
                        internal::LogExpm1((kd * kd - kd) / two_z2);
    log_excess = internal::LogAddExp(log_excess, term);
  }
  return internal::Log1pExp(log_excess) / (alpha - 1.0);
}

ErrorOr<double> PoissonSubsampledGaussianRdpQuadrature(double q,
                                                       double noise_multiplier,
                                                       double alpha) {
  EDGEADMM_PRIVACY_TRY(CheckArguments(q, noise_multiplier, alpha));
  const double s = noise_multiplier;
  const double two_s2 = 2.0 * s * s;
  if (q == 1.0) return alpha / two_s2;
  const double log_q = std::log(q);
  // The integrand is analytic in the strip |Im x| < pi s^2 (branch points of
  // (1 + X)^alpha) and decays like the Gaussians centred at 0 and alpha, so
  // the trapezoid rule with h = min(s, pi s^2) / 8 on [-15 s, alpha + 15 s]
  // has an error far below double precision (truncation e^{-112}, trapezoid
  // error about e^{-2 pi d / h} for a strip half-width d < pi s^2).
  const double h = std::min(s, M_PI * s * s) / 8.0;
  const double lo = -15.0 * s;
  const double hi = alpha + 15.0 * s;
  const auto points = static_cast<size_t>(std::ceil((hi - lo) / h)) + 1;
  const double log_norm = -std::log(s * std::sqrt(2.0 * M_PI));
  std::vector<double> logs(points);
  double peak = -INFINITY;
  for (size_t i = 0; i < points; ++i) {
    const double x = lo + static_cast<double>(i) * h;
    const double u = (2.0 * x - 1.0) / two_s2;
    logs[i] = log_norm - x * x / two_s2 + LogExcess(alpha, q, log_q, u);
    peak = std::max(peak, logs[i]);
  }
  if (peak == -INFINITY) return 0.0;
  double sum = 0.0;
  for (double l : logs) sum += std::exp(l - peak);
  const double log_excess = peak + std::log(sum * h);
  return internal::Log1pExp(log_excess) / (alpha - 1.0);
}

ErrorOr<double> PoissonSubsampledGaussianRdp(double q, double noise_multiplier,
                                             double alpha) {
  if (IsIntegerOrder(alpha) && alpha > 1.5) {
    return PoissonSubsampledGaussianRdpBinomial(q, noise_multiplier, alpha);
  }
  return PoissonSubsampledGaussianRdpQuadrature(q, noise_multiplier, alpha);
}

}  // namespace edgeadmm::privacy
