#include "edgeadmm/privacy/network_rdp.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace edgeadmm::privacy {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// ε_loc(α) = α·(4C)²/(2σ²) = 8αC²/σ² (paper 002 eq. (27), clipped units).
double LocalVisitRdp(double alpha, double sigma_over_clip) {
  return 8 * alpha / (sigma_over_clip * sigma_over_clip);
}

}  // namespace

bool NetworkConditionHolds(double alpha, double sigma_over_clip) {
  if (!(alpha > 1) || !(sigma_over_clip > 0)) return false;
  // c = (α − 1)·ε_loc(α) ≤ 1 (Prop. 3's hypothesis for the worst lag m = 1).
  return (alpha - 1) * LocalVisitRdp(alpha, sigma_over_clip) <= 1;
}

double RandomWalkVisitRdp(double alpha, double sigma_over_clip, int64_t n) {
  if (n < 2 || !NetworkConditionHolds(alpha, sigma_over_clip)) return kInf;
  const double eps_loc = LocalVisitRdp(alpha, sigma_over_clip);
  const double c = (alpha - 1) * eps_loc;
  const double nd = static_cast<double>(n);
  // (1 + c)·Σ_m (1/n)(1 − 1/n)^(m−1)·ε_loc/m = (1 + c)·ε_loc·ln n/(n − 1).
  return (1 + c) * eps_loc * std::log(nd) / (nd - 1);
}

std::vector<double> RandomWalkVisitCurve(const std::vector<double>& orders,
                                         double sigma_over_clip, int64_t n) {
  std::vector<double> curve;
  curve.reserve(orders.size());
  for (double alpha : orders) {
    curve.push_back(RandomWalkVisitRdp(alpha, sigma_over_clip, n));
  }
  return curve;
}

std::vector<double> RandomWalkObserverCurve(const std::vector<double>& orders,
                                            double sigma_over_clip, int64_t n) {
  std::vector<double> curve = RandomWalkVisitCurve(orders, sigma_over_clip, n);
  for (size_t i = 0; i < orders.size(); ++i) {
    if (sigma_over_clip > 0) {
      curve[i] = std::min(curve[i], LocalVisitRdp(orders[i], sigma_over_clip));
    }
  }
  return curve;
}

}  // namespace edgeadmm::privacy
