// Private helpers of the SDK sources: Eigen maps over Spans (no copy).
#pragma once

#include "edgeadmm/eigen_maps.h"
#include "edgeadmm/span.h"

namespace edgeadmm {
namespace internal {

inline VectorMap AsVector(Span<Real> s) {
  return VectorMap(s.data(), static_cast<Eigen::Index>(s.size()));
}
inline ConstVectorMap AsVector(Span<const Real> s) {
  return ConstVectorMap(s.data(), static_cast<Eigen::Index>(s.size()));
}
inline Eigen::Index Index(size_t n) { return static_cast<Eigen::Index>(n); }

}  // namespace internal
}  // namespace edgeadmm
