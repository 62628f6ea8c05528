#include "vector_ops.h"

#include <cmath>

#include "edgeadmm/assert.h"

namespace edgeadmm {
namespace internal {

// Sizes are checked once; the loops then use raw pointers (Span's
// operator[] checks every index).

Real Dot(Span<const Real> a, Span<const Real> b) {
  EDGEADMM_ASSERT(a.size() == b.size());
  const Real* x = a.data();
  const Real* y = b.data();
  Real sum = 0;
  for (size_t i = 0; i < a.size(); ++i) sum += x[i] * y[i];
  return sum;
}

void Axpy(Real alpha, Span<const Real> x, Span<Real> y) {
  EDGEADMM_ASSERT(x.size() == y.size());
  const Real* in = x.data();
  Real* out = y.data();
  for (size_t i = 0; i < x.size(); ++i) out[i] += alpha * in[i];
}

void Scale(Real alpha, Span<Real> x) {
  for (Real& value : x) value *= alpha;
}

Real Norm(Span<const Real> x) { return std::sqrt(Dot(x, x)); }

Real StableNorm(Span<const Real> x) {
  Real scale = 0;
  for (const Real value : x) {
    const Real magnitude = std::fabs(value);
    if (magnitude > scale) {
      scale = magnitude;
    } else if (!(magnitude <= scale)) {
      return magnitude;  // NaN
    }
  }
  if (scale == 0 || !std::isfinite(scale)) return scale;
  Real sum = 0;
  for (const Real value : x) {
    const Real scaled = value / scale;
    sum += scaled * scaled;
  }
  return scale * std::sqrt(sum);
}

}  // namespace internal
}  // namespace edgeadmm
