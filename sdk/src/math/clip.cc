#include "edgeadmm/clip.h"

#include <cmath>
#include <limits>

#include "vector_ops.h"

namespace edgeadmm {
namespace {

// Most ulp-shrinks the guard takes (each 2 ulps; one suffices in practice).
constexpr int kMaxShrinks = 16;

// ||v||₂ as the guard checks it: a float Real is squared and summed in double
// (products exact, sum error ~1e-16), so the check sees the rounded vector's
// true norm; a double Real uses the overflow-safe norm.
double GuardNorm(Span<const Real> v) {
  if constexpr (sizeof(Real) < sizeof(double)) {
    double sum = 0;
    for (const Real x : v)
      sum += static_cast<double>(x) * static_cast<double>(x);
    return std::sqrt(sum);
  } else {
    return static_cast<double>(internal::StableNorm(v));
  }
}

}  // namespace

Real ClipL2(Span<Real> v, Real c) {
  EDGEADMM_ASSERT(std::isfinite(c) && c > 0);
  const Real norm = internal::StableNorm(v);
  const double bound = static_cast<double>(c);
  // A float vector whose float-computed norm is ≤ c may still exceed c:
  // decide on the guard's norm (the same value as `norm` in double).
  const double exact = GuardNorm(v);
  if (exact > bound) {
    internal::Scale(ToReal(bound / exact), v);
    // Guard: the factor and every product round in Real, so the clipped
    // vector can land ulps above c; the ledger charges a sensitivity that
    // assumes ||v|| ≤ c, so shrink by 2 ulps until it holds (issue 34).
    const Real shrink = 1 - 2 * std::numeric_limits<Real>::epsilon();
    for (int i = 0; i < kMaxShrinks && GuardNorm(v) > bound; ++i) {
      internal::Scale(shrink, v);
    }
  }
  return norm;
}

}  // namespace edgeadmm
