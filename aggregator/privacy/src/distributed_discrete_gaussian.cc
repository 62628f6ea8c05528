// The distributed discrete Gaussian's RDP bound (see
// distributed_discrete_gaussian.h).
#include "edgeadmm/privacy/distributed_discrete_gaussian.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "checks.h"

namespace edgeadmm::privacy {

double DistributedDiscreteGaussianTau(double sigma, uint64_t devices) {
  const double a = 2.0 * M_PI * M_PI * sigma * sigma;
  if (a / 2.0 > 746.0) return 0.0;  // every term underflows (TauPrefix)
  double sum = 0.0;
  for (uint64_t k = 1; k < devices; ++k) {
    const double kd = static_cast<double>(k);
    sum += std::exp(-a * kd / (kd + 1.0));
  }
  // n positive terms: the double sum is within n ulps of the exact one;
  // round it up by that much so tau stays an upper bound.
  const double slack = 1.0 + static_cast<double>(devices + 1) * 0x1p-52;
  return 10.0 * sum * slack;
}

host::Error CheckDistributedDiscreteGaussian(
    const DistributedDiscreteGaussian& m) {
  EDGEADMM_HOST_TRY(
      internal::CheckPositive("L2 sensitivity", m.l2_sensitivity));
  EDGEADMM_HOST_TRY(
      internal::CheckPositive("L1 sensitivity", m.l1_sensitivity));
  if (!(m.sigma >= 0.5) || !std::isfinite(m.sigma)) {
    return host::Error::InvalidArgument(internal::Describe(
        "the devices' discrete Gaussian sigma", "finite and >= 1/2", m.sigma));
  }
  if (m.devices == 0 || m.dimension == 0) {
    return host::Error::InvalidArgument(
        "the distributed discrete Gaussian needs n >= 1 devices and d >= 1 "
        "coordinates");
  }
  return host::Error::Ok();
}

namespace {

// The theorem's bound at order alpha for n devices, given tau(n).
double BoundAt(double alpha, const DistributedDiscreteGaussian& m, double n,
               double tau) {
  const double root_n_sigma = std::sqrt(n) * m.sigma;
  const double s = m.l2_sensitivity / root_n_sigma;
  const double d = static_cast<double>(m.dimension);
  const double additive = alpha * s * s / 2.0 + tau * d;
  const double with_l1 =
      alpha / 2.0 *
      (s * s + 2.0 * tau * m.l1_sensitivity / root_n_sigma + tau * tau * d);
  const double root = s + tau * std::sqrt(d);
  const double shifted = alpha / 2.0 * root * root;
  return std::min({additive, with_l1, shifted});
}

// taus[m] = tau(m) for m = 0..n (one pass of the sum), each rounded up by
// m + 1 ulps as DistributedDiscreteGaussianTau does.
std::vector<double> TauPrefix(double sigma, uint64_t n) {
  const double a = 2.0 * M_PI * M_PI * sigma * sigma;
  std::vector<double> taus(n + 1, 0.0);
  // Every term is at most exp(-a/2); past 746 that is 0 in double, as each
  // term would be: the sums are exactly 0, skip them.
  if (a / 2.0 > 746.0) return taus;
  double sum = 0.0;
  for (uint64_t m = 2; m <= n; ++m) {
    const double k = static_cast<double>(m - 1);
    sum += std::exp(-a * k / (k + 1.0));
    taus[m] = 10.0 * sum * (1.0 + static_cast<double>(m + 1) * 0x1p-52);
  }
  return taus;
}

// min over n' <= n of B(n') at order alpha, by branch and bound over
// intervals of n'. BoundAt grows with s and with tau, s(n') falls as n'
// grows and tau(n') grows with n', so BoundAt(alpha, m, hi, tau(lo)) is a
// lower bound on B(n') for every n' in [lo, hi] (in floating point too:
// each operation rounds monotonically). An interval whose lower bound is
// not below the best value found is skipped; the rest are split. The
// result equals the plain scan's minimum.
double MinimumOverCounts(double alpha, const DistributedDiscreteGaussian& m,
                         const std::vector<double>& taus) {
  constexpr uint64_t kScanWidth = 16;  // intervals this short are scanned
  const uint64_t n = m.devices;
  double best = BoundAt(alpha, m, static_cast<double>(n), taus[n]);
  std::vector<std::pair<uint64_t, uint64_t>> open;
  if (n > 1) open.push_back({1, n - 1});
  while (!open.empty()) {
    const auto [lo, hi] = open.back();
    open.pop_back();
    if (BoundAt(alpha, m, static_cast<double>(hi), taus[lo]) >= best) continue;
    if (hi - lo < kScanWidth) {
      for (uint64_t k = lo; k <= hi; ++k) {
        best =
            std::min(best, BoundAt(alpha, m, static_cast<double>(k), taus[k]));
      }
      continue;
    }
    const uint64_t mid = lo + (hi - lo) / 2;
    best =
        std::min(best, BoundAt(alpha, m, static_cast<double>(mid), taus[mid]));
    open.push_back({lo, mid - 1});
    open.push_back({mid + 1, hi});
  }
  return best;
}

}  // namespace

host::ErrorOr<std::vector<double>> DistributedDiscreteGaussianRdpCurve(
    const DistributedDiscreteGaussian& m, const std::vector<double>& orders) {
  EDGEADMM_HOST_TRY(CheckDistributedDiscreteGaussian(m));
  const std::vector<double> taus = TauPrefix(m.sigma, m.devices);
  std::vector<double> values(orders.size());
  for (size_t i = 0; i < orders.size(); ++i) {
    EDGEADMM_HOST_TRY(internal::CheckOrder(orders[i]));
    values[i] = MinimumOverCounts(orders[i], m, taus);
  }
  return values;
}

host::ErrorOr<double> DistributedDiscreteGaussianRdpAtCount(
    double alpha, const DistributedDiscreteGaussian& m, uint64_t count) {
  EDGEADMM_HOST_TRY(CheckDistributedDiscreteGaussian(m));
  EDGEADMM_HOST_TRY(internal::CheckOrder(alpha));
  if (count == 0) {
    return host::Error::InvalidArgument(
        "the distributed discrete Gaussian's bound needs a count >= 1");
  }
  return BoundAt(alpha, m, static_cast<double>(count),
                 DistributedDiscreteGaussianTau(m.sigma, count));
}

host::ErrorOr<double> DistributedDiscreteGaussianRdp(
    double alpha, const DistributedDiscreteGaussian& m) {
  EDGEADMM_HOST_TRY_ASSIGN(std::vector<double> values,
                           DistributedDiscreteGaussianRdpCurve(m, {alpha}));
  return values[0];
}

}  // namespace edgeadmm::privacy
