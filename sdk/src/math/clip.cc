#include "edgeadmm/clip.h"

#include <cmath>

#include "vector_ops.h"

namespace edgeadmm {

Real ClipL2(Span<Real> v, Real c) {
  EDGEADMM_ASSERT(std::isfinite(c) && c > 0);
  const Real norm = internal::StableNorm(v);
  if (norm > c) internal::Scale(c / norm, v);
  return norm;
}

}  // namespace edgeadmm
