#include "edgeadmm/privacy/rdp_curve.h"

#include <cmath>

namespace edgeadmm::privacy {

RdpCurve::RdpCurve(OrderGrid grid)
    : grid_(std::move(grid)), values_(grid_.size(), 0.0) {}

host::ErrorOr<RdpCurve> RdpCurve::FromValues(OrderGrid grid,
                                             std::vector<double> values) {
  if (values.size() != grid.size()) {
    return host::Error::InvalidArgument(
        "RDP curve has " + std::to_string(values.size()) + " values for " +
        std::to_string(grid.size()) + " orders");
  }
  for (double v : values) {
    if (std::isnan(v) || v < 0.0) {
      return host::Error::InvalidArgument(
          "RDP values must be >= 0 and not NaN");
    }
  }
  RdpCurve curve(std::move(grid));
  curve.values_ = std::move(values);
  return curve;
}

host::Error RdpCurve::Compose(const RdpCurve& other, uint64_t times) {
  if (other.grid_ != grid_) {
    return host::Error::InvalidArgument(
        "cannot compose RDP curves on different order grids");
  }
  const double k = static_cast<double>(times);
  const double* src = other.values_.data();
  double* dst = values_.data();
  for (size_t i = 0, n = values_.size(); i < n; ++i) dst[i] += k * src[i];
  return host::Error::Ok();
}

}  // namespace edgeadmm::privacy
