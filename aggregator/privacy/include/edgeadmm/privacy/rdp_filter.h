// RdpFilter: a fixed-budget Rényi filter (Feldman and Zrnic 2021,
// "Individual Privacy Accounting via a Rényi Filter", Thm. 3.1).
//
// A sequence of mechanisms chosen adaptively (each one's RDP curve may
// depend on every earlier output) satisfies (α, B)-RDP as a whole when a
// mechanism is only run if the sum of the curves at α, itself included,
// stays ≤ B. The order α and the budget B are fixed before the first
// mechanism; the improved conversion (Canonne, Kamath, Steinke 2020,
// Prop. 12) at that one order then gives (ε, δ)-DP for the whole sequence,
// however long it runs. Reading ε off the realized sum with the best order
// chosen afterwards (what a ledger's report does) is not such a guarantee
// when the sequence itself adapts to what was spent.
//
// The order: the one of the grid that affords the most Gaussian rounds for
// (ε, δ), i.e. the largest B(α)/α (a Gaussian's RDP is linear in α).
#pragma once

#include <cstddef>
#include <vector>

#include "edgeadmm/host/error.h"

namespace edgeadmm::privacy {

class RdpFilter {
 public:
  // The filter for (epsilon, delta) on `orders` (every curve it is given
  // has one value per order). INVALID_ARGUMENT unless epsilon > 0 is
  // finite, 0 < delta < 1 and `orders` is not empty. When no order leaves
  // a positive budget (ε below what the grid can convert), the filter
  // admits nothing.
  static host::ErrorOr<RdpFilter> Create(const std::vector<double>& orders,
                                         double epsilon, double delta);

  // Whether a sequence whose composed curve is `composed` (everything run
  // so far plus the mechanism about to run) stays within the budget.
  bool Admits(const std::vector<double>& composed) const {
    return composed[index_] <= budget_;
  }
  // ε at the filter's δ of `composed` at the filter's order (what the
  // filter has spent; ≤ epsilon() whenever Admits).
  double Spent(const std::vector<double>& composed) const;

  double order() const { return order_; }
  size_t order_index() const { return index_; }
  double budget() const { return budget_; }  // B, RDP at order()
  double epsilon() const { return epsilon_; }
  double delta() const { return delta_; }

 private:
  RdpFilter() = default;
  size_t index_ = 0;
  double order_ = 0;
  double budget_ = 0;
  double epsilon_ = 0;
  double delta_ = 0;
};

}  // namespace edgeadmm::privacy
