// RdpCurve: Renyi-DP epsilons of a mechanism (or a composition) over a grid
// of orders.
//
// Composition (Mironov 2017, Prop. 1): RDP adds order by order under adaptive
// composition, so composing a round is one vector add over the grid.
#pragma once

#include <cstdint>
#include <vector>

#include "edgeadmm/host/error.h"
#include "edgeadmm/privacy/rdp_orders.h"

namespace edgeadmm::privacy {

class RdpCurve {
 public:
  // The zero curve (nothing released yet) on `grid`.
  explicit RdpCurve(OrderGrid grid = OrderGrid::Default());

  // A curve from explicit values. INVALID_ARGUMENT when the sizes differ or a
  // value is negative or NaN (+infinity is allowed: no guarantee at that
  // order).
  static host::ErrorOr<RdpCurve> FromValues(OrderGrid grid,
                                            std::vector<double> values);

  const OrderGrid& grid() const { return grid_; }
  const std::vector<double>& values() const { return values_; }
  size_t size() const { return values_.size(); }
  double operator[](size_t i) const { return values_[i]; }

  // Composes `times` copies of `other` into this curve (adds times * other).
  // INVALID_ARGUMENT when the grids differ.
  host::Error Compose(const RdpCurve& other, uint64_t times = 1);

 private:
  OrderGrid grid_;
  std::vector<double> values_;
};

}  // namespace edgeadmm::privacy
