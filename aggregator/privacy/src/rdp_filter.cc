#include "edgeadmm/privacy/rdp_filter.h"

#include <cmath>

namespace edgeadmm::privacy {
namespace {

// The improved conversion at one order, ε = R + log(1 − 1/α) −
// (log δ + log α)/(α − 1), and its inverse R(ε).
double ConversionOffset(double alpha, double delta) {
  return std::log1p(-1.0 / alpha) -
         (std::log(delta) + std::log(alpha)) / (alpha - 1.0);
}

}  // namespace

host::ErrorOr<RdpFilter> RdpFilter::Create(const std::vector<double>& orders,
                                           double epsilon, double delta) {
  if (!(epsilon > 0) || !std::isfinite(epsilon) || !(delta > 0) ||
      !(delta < 1)) {
    return host::Error::InvalidArgument(
        "an RDP filter needs 0 < epsilon < inf and 0 < delta < 1");
  }
  RdpFilter filter;
  filter.epsilon_ = epsilon;
  filter.delta_ = delta;
  if (orders.empty()) {
    return host::Error::InvalidArgument("an RDP filter needs orders");
  }
  // The largest B(α)/α; when no order leaves a positive budget, the first
  // order (B < 0: the filter admits nothing, every curve is ≥ 0).
  double best = -INFINITY;
  for (size_t i = 0; i < orders.size(); ++i) {
    const double alpha = orders[i];
    const double budget = epsilon - ConversionOffset(alpha, delta);
    const double score = budget > 0 ? budget / alpha : -1.0;
    if (score > best) {
      best = score;
      filter.index_ = i;
      filter.order_ = alpha;
      filter.budget_ = budget;
    }
  }
  return filter;
}

double RdpFilter::Spent(const std::vector<double>& composed) const {
  return std::fmax(0.0, composed[index_] + ConversionOffset(order_, delta_));
}

}  // namespace edgeadmm::privacy
