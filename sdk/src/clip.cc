#include "edgeadmm/clip.h"

#include <cmath>

#include "span_map.h"

namespace edgeadmm {

Real ClipL2(Span<Real> v, Real c) {
  EDGEADMM_ASSERT(std::isfinite(c) && c > 0);
  VectorMap x = internal::AsVector(v);
  const Real norm = x.stableNorm();
  if (norm > c) x *= c / norm;
  return norm;
}

}  // namespace edgeadmm
