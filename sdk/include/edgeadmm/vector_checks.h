// Input checks shared by the local steps: finiteness and sizes of vectors.
#pragma once

#include <cmath>
#include <cstddef>

#include "edgeadmm/real.h"
#include "edgeadmm/span.h"

namespace edgeadmm {

// True if every entry of v is finite.
inline bool AllFinite(Span<const Real> v) {
  for (Real x : v) {
    if (!std::isfinite(x)) return false;
  }
  return true;
}

// True if v has `dim` entries, all finite.
inline bool IsFiniteVector(Span<const Real> v, size_t dim) {
  return v.size() == dim && AllFinite(v);
}

// True if x is finite and strictly positive.
// For Real and for the privacy parameters held in double (real.h).
template <typename T>
inline bool IsPositive(T x) {
  return std::isfinite(x) && x > 0;
}

}  // namespace edgeadmm
