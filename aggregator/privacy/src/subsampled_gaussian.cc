#include "edgeadmm/privacy/subsampled_gaussian.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "checks.h"
#include "edgeadmm/privacy/rdp_orders.h"

namespace edgeadmm::privacy {
namespace {

host::Error CheckRateAndNoise(double q, double z) {
  EDGEADMM_HOST_TRY(internal::CheckRate("sampling rate q", q));
  return internal::CheckPositive("noise multiplier", z);
}

host::Error CheckArguments(double q, double z, double alpha) {
  EDGEADMM_HOST_TRY(CheckRateAndNoise(q, z));
  return internal::CheckOrder(alpha);
}

// log sum_i exp(logs[i]) with one max shift.
double LogSumExp(const std::vector<double>& logs) {
  double peak = -INFINITY;
  for (double l : logs) peak = std::max(peak, l);
  if (peak == -INFINITY) return -INFINITY;
  double sum = 0.0;
  for (double l : logs) sum += std::exp(l - peak);
  return peak + std::log(sum);
}

// The order-independent part of the integrand at one quadrature point x:
// the log Gaussian weight and X = q * expm1(u), u = (2x - 1) / (2 z^2).
struct QuadraturePoint {
  double log_weight;  // log(h * N(x; 0, z^2))
  double x;           // X (+inf when it overflows)
  double log_x;       // log X, valid when X > 0
  double log1p_x;     // log(1 + X)
};

QuadraturePoint MakePoint(double q, double log_q, double z, double position,
                          double log_h) {
  const double two_z2 = 2.0 * z * z;
  const double u = (2.0 * position - 1.0) / two_z2;
  QuadraturePoint p;
  p.log_weight = log_h - std::log(z * std::sqrt(2.0 * M_PI)) -
                 position * position / two_z2;
  p.log_x = 0.0;
  if (u < 30.0) {
    p.x = q * std::expm1(u);
    p.log1p_x = std::log1p(p.x);
    if (p.x > 0.0) p.log_x = std::log(p.x);
  } else {
    p.log_x = log_q + u + std::log1p(-std::exp(-u));
    p.log1p_x = internal::LogAddExp(0.0, p.log_x);
    p.x = p.log_x < 700.0 ? std::exp(p.log_x) : INFINITY;  // then t >= 40
  }
  return p;
}

// log f(X) with f(X) = (1 + X)^alpha - 1 - alpha X >= 0. Uses the power
// series for small |X| (no cancellation), the direct form in between and the
// dominant term when (1 + X)^alpha is astronomically large.
double LogExcess(double alpha, const QuadraturePoint& p) {
  const double x = p.x;
  if (std::fabs(x) < 0.25) {
    // sum_{k>=2} C(alpha,k) x^k; C(alpha,k+1) = C(alpha,k)(alpha-k)/(k+1).
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
  const double t = alpha * p.log1p_x;
  if (t < 40.0) {
    const double f = std::expm1(t) - alpha * x;
    return f > 0.0 ? std::log(f) : -INFINITY;
  }
  // Here X > 0 is large: f = exp(t) (1 - exp(log(1 + alpha X) - t)).
  const double log1p_alpha_x =
      internal::LogAddExp(0.0, std::log(alpha) + p.log_x);
  return t + std::log1p(-std::exp(log1p_alpha_x - t));
}

// RDP at each of `alphas` (all > 1, q < 1) by the log-space trapezoid rule on
// one grid shared by all orders. The integrand is analytic in the strip
// |Im x| < pi z^2 (branch points of (1 + X)^alpha) and decays like Gaussians
// centred at 0 and alpha, so the rule with h = min(z / 4, pi z^2 / 8) on
// [-12 z, max alpha + 12 z] converges geometrically: truncation ~e^{-72},
// discretisation ~e^{-2 pi d / h} for the strip half-width d (below 1e-19
// when z < 1/pi, far smaller above).
std::vector<double> QuadratureRdp(double q, double z,
                                  const std::vector<double>& alphas) {
  const double h = std::min(z / 4.0, M_PI * z * z / 8.0);
  const double lo = -12.0 * z;
  const double hi = *std::max_element(alphas.begin(), alphas.end()) + 12.0 * z;
  const auto count = static_cast<size_t>(std::ceil((hi - lo) / h)) + 1;
  const double log_q = std::log(q);
  const double log_h = std::log(h);
  std::vector<QuadraturePoint> points;
  points.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    points.push_back(
        MakePoint(q, log_q, z, lo + static_cast<double>(i) * h, log_h));
  }
  std::vector<double> rdp(alphas.size());
  std::vector<double> logs(count);
  for (size_t j = 0; j < alphas.size(); ++j) {
    for (size_t i = 0; i < count; ++i) {
      logs[i] = points[i].log_weight + LogExcess(alphas[j], points[i]);
    }
    // A - 1 = sum of the positive integrand; A = 1 + that.
    rdp[j] = internal::Log1pExp(LogSumExp(logs)) / (alphas[j] - 1.0);
  }
  return rdp;
}

// RDP at each integer order in `orders` (all >= 2, q < 1) by the binomial
// form, sharing log k! and log(expm1((k^2 - k)/(2 z^2))) across orders.
std::vector<double> BinomialRdp(double q, double z,
                                const std::vector<int>& orders) {
  const int top = *std::max_element(orders.begin(), orders.end());
  const double two_z2 = 2.0 * z * z;
  std::vector<double> log_factorial(top + 1), log_moment(top + 1);
  for (int k = 0; k <= top; ++k) {
    const double kd = k;
    log_factorial[k] = std::lgamma(kd + 1.0);
    log_moment[k] = k >= 2 ? internal::LogExpm1((kd * kd - kd) / two_z2) : 0.0;
  }
  const double log_q = std::log(q);
  const double log_1mq = std::log1p(-q);
  std::vector<double> rdp(orders.size());
  std::vector<double> logs;
  for (size_t j = 0; j < orders.size(); ++j) {
    const int n = orders[j];
    // log(A - 1) = logsumexp_{k=2..n} [log C(n,k) + (n-k) log(1-q)
    //                                  + k log q + log(expm1((k^2-k)/(2z^2)))]
    logs.assign(n - 1, 0.0);
    for (int k = 2; k <= n; ++k) {
      logs[k - 2] = log_factorial[n] - log_factorial[k] - log_factorial[n - k] +
                    (n - k) * log_1mq + k * log_q + log_moment[k];
    }
    rdp[j] = internal::Log1pExp(LogSumExp(logs)) / (n - 1.0);
  }
  return rdp;
}

}  // namespace

host::ErrorOr<double> PoissonSubsampledGaussianRdpBinomial(
    double q, double noise_multiplier, double alpha) {
  EDGEADMM_HOST_TRY(CheckArguments(q, noise_multiplier, alpha));
  if (!IsIntegerOrder(alpha)) {
    return host::Error::OutOfRange(
        "the binomial form needs an integer order, got " +
        std::to_string(alpha));
  }
  if (q == 1.0) return alpha / (2.0 * noise_multiplier * noise_multiplier);
  return BinomialRdp(q, noise_multiplier,
                     {static_cast<int>(std::lround(alpha))})[0];
}

host::ErrorOr<double> PoissonSubsampledGaussianRdpQuadrature(
    double q, double noise_multiplier, double alpha) {
  EDGEADMM_HOST_TRY(CheckArguments(q, noise_multiplier, alpha));
  if (q == 1.0) return alpha / (2.0 * noise_multiplier * noise_multiplier);
  return QuadratureRdp(q, noise_multiplier, {alpha})[0];
}

host::ErrorOr<double> PoissonSubsampledGaussianRdp(double q,
                                                   double noise_multiplier,
                                                   double alpha) {
  if (IsIntegerOrder(alpha) && alpha > 1.5) {
    return PoissonSubsampledGaussianRdpBinomial(q, noise_multiplier, alpha);
  }
  return PoissonSubsampledGaussianRdpQuadrature(q, noise_multiplier, alpha);
}

host::ErrorOr<std::vector<double>> PoissonSubsampledGaussianRdpCurve(
    double q, double noise_multiplier, const std::vector<double>& orders) {
  EDGEADMM_HOST_TRY(CheckRateAndNoise(q, noise_multiplier));
  for (double alpha : orders) EDGEADMM_HOST_TRY(internal::CheckOrder(alpha));
  std::vector<double> rdp(orders.size());
  if (q == 1.0) {
    for (size_t i = 0; i < orders.size(); ++i) {
      rdp[i] = orders[i] / (2.0 * noise_multiplier * noise_multiplier);
    }
    return rdp;
  }
  std::vector<int> integer_orders;
  std::vector<double> fractional_orders;
  for (double alpha : orders) {
    if (IsIntegerOrder(alpha) && alpha > 1.5) {
      integer_orders.push_back(static_cast<int>(std::lround(alpha)));
    } else {
      fractional_orders.push_back(alpha);
    }
  }
  std::vector<double> integer_rdp, fractional_rdp;
  if (!integer_orders.empty()) {
    integer_rdp = BinomialRdp(q, noise_multiplier, integer_orders);
  }
  if (!fractional_orders.empty()) {
    fractional_rdp = QuadratureRdp(q, noise_multiplier, fractional_orders);
  }
  size_t next_integer = 0, next_fractional = 0;
  for (size_t i = 0; i < orders.size(); ++i) {
    rdp[i] = IsIntegerOrder(orders[i]) && orders[i] > 1.5
                 ? integer_rdp[next_integer++]
                 : fractional_rdp[next_fractional++];
  }
  return rdp;
}

}  // namespace edgeadmm::privacy
