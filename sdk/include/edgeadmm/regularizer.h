// Regularizer r(w) = l1·||w||₁ + (l2/2)·||w||₂²  (paper 002 eq. (5) applies
// its prox on the server; paper 004 uses its subgradient on the device).
// kNone: l1 = l2 = 0; kL2: l1 = 0; kL1: l2 = 0; kElasticNet: both.
#pragma once

#include <cstdint>

#include "edgeadmm/real.h"
#include "edgeadmm/span.h"
#include "edgeadmm/status.h"

namespace edgeadmm {

enum class RegularizerKind : uint8_t {
  kNone = 0,
  kL2 = 1,
  kL1 = 2,
  kElasticNet = 3
};

struct Regularizer {
  RegularizerKind kind = RegularizerKind::kNone;
  Real l1 = 0;
  Real l2 = 0;

  // OK, or INVALID_ARGUMENT for an unknown kind, a negative or non-finite
  // weight, or a non-zero weight the kind does not use (e.g. l1 with kL2).
  Status Validate() const;
  // r(w). Weights the kind does not use count as zero.
  Real Value(Span<const Real> w) const;
  // out = prox_{step·r}(v) = argmin_x r(x) + ||x − v||²/(2·step), step ≥ 0:
  // out_i = sign(v_i)·max(|v_i| − step·l1, 0) / (1 + step·l2)
  // (soft-threshold, then shrink). out may alias v; sizes must match.
  void Prox(Span<const Real> v, Real step, Span<Real> out) const;
  // out = l1·sgn(w) + l2·w with sgn(0) = 0 (an element of ∂r(w)). out may
  // alias w; sizes must match.
  void Subgradient(Span<const Real> w, Span<Real> out) const;

  // The weights in effect for this kind (0 where the kind does not use one).
  Real EffectiveL1() const;
  Real EffectiveL2() const;
};

}  // namespace edgeadmm
