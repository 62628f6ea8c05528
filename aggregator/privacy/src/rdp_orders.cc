#include "edgeadmm/privacy/rdp_orders.h"

#include <cmath>
#include <string>

namespace edgeadmm::privacy {

const OrderGrid& OrderGrid::Default() {
  static const OrderGrid* const kGrid = [] {
    std::vector<double> orders;
    for (int tenth = 11; tenth <= 109; ++tenth) orders.push_back(tenth / 10.0);
    for (int a = 11; a <= 63; ++a) orders.push_back(a);
    for (double a : {128.0, 256.0, 512.0, 1024.0}) orders.push_back(a);
    return new OrderGrid(std::move(orders));
  }();
  return *kGrid;
}

host::ErrorOr<OrderGrid> OrderGrid::Create(std::vector<double> orders) {
  if (orders.empty()) {
    return host::Error::InvalidArgument("the order grid is empty");
  }
  for (size_t i = 0; i < orders.size(); ++i) {
    if (!std::isfinite(orders[i]) || orders[i] <= 1.0) {
      return host::Error::InvalidArgument(
          "Renyi orders must be finite and > 1, got " +
          std::to_string(orders[i]));
    }
    if (i > 0 && orders[i] <= orders[i - 1]) {
      return host::Error::InvalidArgument(
          "Renyi orders must be strictly increasing");
    }
  }
  return OrderGrid(std::move(orders));
}

bool IsIntegerOrder(double alpha) {
  return std::fabs(alpha - std::round(alpha)) < 1e-12;
}

}  // namespace edgeadmm::privacy
