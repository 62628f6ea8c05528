// Geometric bisection shared by the noise calibrations (internal header).
#pragma once

#include <cmath>

#include "edgeadmm/host/error.h"

namespace edgeadmm::privacy::internal {

// Given meets(hi) true and meets(lo) false for a monotone predicate, narrows
// [lo, hi] by geometric midpoints until hi / lo <= 1 + relative and returns
// hi (the predicate holds there). `meets(x)` returns host::ErrorOr<bool>; its
// errors are passed on.
template <typename Meets>
host::ErrorOr<double> LogBisect(double lo, double hi, double relative,
                                Meets&& meets) {
  while (hi / lo > 1.0 + relative) {
    const double mid = std::sqrt(lo * hi);
    EDGEADMM_HOST_TRY_ASSIGN(const bool ok, meets(mid));
    (ok ? hi : lo) = mid;
  }
  return hi;
}

}  // namespace edgeadmm::privacy::internal
