// The SDK's compute type for models, data, workspace and kernels.
//
// Chosen at build time (CMake EDGEADMM_REAL, docs/porting.md): double by
// default, so hosted builds stay bit-identical to their goldens; float on the
// Cortex-M4F, whose FPU is single precision (soft-float double costs 16x the
// instructions per local step). Noise is sampled in double and rounded once;
// the privacy ledger and accountant compute in double whatever Real is.
#pragma once

#include <cmath>
#include <limits>

namespace edgeadmm {

#if defined(EDGEADMM_REAL_FLOAT) && EDGEADMM_REAL_FLOAT
using Real = float;
#else
using Real = double;
#endif

// The boundary between the privacy math (double) and the compute type:
// literals and wire values become Real once, explicitly.
constexpr Real ToReal(double v) { return static_cast<Real>(v); }

// Directed roundings for privacy parameters from the wire (double): a clip
// bound rounds down and a noise scale rounds up, so a float device never
// has a larger sensitivity or less noise than the aggregator charges for.
// Exact (no change) when Real is double.
inline Real ToRealDown(double v) {
  Real r = static_cast<Real>(v);
  if (static_cast<double>(r) > v) {
    r = std::nextafter(r, -std::numeric_limits<Real>::infinity());
  }
  return r;
}
inline Real ToRealUp(double v) {
  Real r = static_cast<Real>(v);
  if (static_cast<double>(r) < v) {
    r = std::nextafter(r, std::numeric_limits<Real>::infinity());
  }
  return r;
}

}  // namespace edgeadmm
