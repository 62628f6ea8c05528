// OrderGrid: the Renyi orders alpha at which RDP curves are tracked.
//
// Curves are compared and composed order by order, so every curve of one
// ledger shares one grid. The default grid has fractional orders where the
// optimum of the conversion usually lies for moderate epsilon, and a few large
// orders for small epsilon / many rounds.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "edgeadmm/host/error.h"

namespace edgeadmm::privacy {

class OrderGrid {
 public:
  // The default grid: 1.1, 1.2, ..., 10.9 (step 0.1), 11, 12, ..., 63,
  // 128, 256, 512, 1024 (156 orders).
  static const OrderGrid& Default();

  // A grid from explicit orders. INVALID_ARGUMENT unless the list is non-empty,
  // every order is finite and > 1, and the orders are strictly increasing.
  static host::ErrorOr<OrderGrid> Create(std::vector<double> orders);

  size_t size() const { return orders_->size(); }
  double operator[](size_t i) const { return (*orders_)[i]; }
  const std::vector<double>& orders() const { return *orders_; }

  friend bool operator==(const OrderGrid& a, const OrderGrid& b) {
    return a.orders_ == b.orders_ || *a.orders_ == *b.orders_;
  }
  friend bool operator!=(const OrderGrid& a, const OrderGrid& b) {
    return !(a == b);
  }

 private:
  explicit OrderGrid(std::vector<double> orders)
      : orders_(
            std::make_shared<const std::vector<double>>(std::move(orders))) {}
  std::shared_ptr<const std::vector<double>> orders_;
};

// True when alpha is an integer (within 1e-12), i.e. the binomial expansion
// applies.
bool IsIntegerOrder(double alpha);

}  // namespace edgeadmm::privacy
