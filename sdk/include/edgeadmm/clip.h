// L2 clipping: Clip(v, C) = v·min(1, C/||v||₂) (paper 002, Alg. 3; the digest
// notes the paper never defines it, this is the standard definition).
#pragma once

#include "edgeadmm/real.h"
#include "edgeadmm/span.h"

namespace edgeadmm {

// Scales v in place so that ||v||₂ ≤ c and returns ||v||₂ before clipping
// (computed without overflow). ||v||₂ ≤ c holds for the vector as rounded
// in Real (a guard re-checks and shrinks by ulps; float builds check in
// double). c must be finite and > 0 (asserted). A zero
// vector is left unchanged.
Real ClipL2(Span<Real> v, Real c);

}  // namespace edgeadmm
