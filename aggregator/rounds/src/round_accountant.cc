#include "edgeadmm/rounds/round_accountant.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "edgeadmm/assert.h"

namespace edgeadmm::rounds {
namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}  // namespace

FallbackRdpAccountant::FallbackRdpAccountant() {
  for (int a = 2; a <= 64; ++a) orders_.push_back(a);
  for (int a : {80, 96, 128, 160, 192, 256, 512}) orders_.push_back(a);
}

std::vector<double> FallbackRdpAccountant::RoundRdp(
    const RoundMechanism& m) const {
  std::vector<double> rdp(orders_.size(), kInf);
  const double nu = m.noise_multiplier;
  const double q = m.sampling_rate;
  if (q <= 0) return std::vector<double>(orders_.size(), 0.0);
  if (!(nu > 0)) return rdp;
  for (size_t i = 0; i < orders_.size(); ++i) {
    const double alpha = orders_[i];
    if (q >= 1) {
      rdp[i] = alpha / (2 * nu * nu);
      continue;
    }
    // log-sum-exp over k of the binomial mixture terms.
    const int a = static_cast<int>(alpha);
    std::vector<double> terms(static_cast<size_t>(a) + 1);
    for (int k = 0; k <= a; ++k) {
      const double log_binom = std::lgamma(a + 1.0) - std::lgamma(k + 1.0) -
                               std::lgamma(a - k + 1.0);
      terms[static_cast<size_t>(k)] =
          log_binom + (a - k) * std::log1p(-q) + k * std::log(q) +
          (static_cast<double>(k) * k - k) / (2 * nu * nu);
    }
    const double top = *std::max_element(terms.begin(), terms.end());
    double sum = 0;
    for (double t : terms) sum += std::exp(t - top);
    rdp[i] = (top + std::log(sum)) / (alpha - 1);
  }
  return rdp;
}

double FallbackRdpAccountant::Epsilon(const std::vector<double>& rdp,
                                      double delta) const {
  EDGEADMM_ASSERT(rdp.size() == orders_.size());
  double best = kInf;
  for (size_t i = 0; i < orders_.size(); ++i) {
    best = std::min(best, rdp[i] + std::log(1 / delta) / (orders_[i] - 1));
  }
  return best;
}

void ComposeRdp(std::vector<double>& a, const std::vector<double>& b) {
  EDGEADMM_ASSERT(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) a[i] += b[i];
}

}  // namespace edgeadmm::rounds
