// Per-record loss ℓ(t; b) of a linear model, evaluated at the margin t = aᵀw.
//
// Losses (paper 002 Sec. 5 uses squared and logistic; paper 004 logistic):
//   kLogistic      ℓ = log(1 + e^{-bt})               (labels b = ±1)
//   kSquared       ℓ = ½(t − b)²                      (any real b)
//   kSmoothedHinge ℓ = H(bt) with the quadratically smoothed hinge of width h:
//                  H(z) = 0 for z ≥ 1,  (1 − z)²/(2h) for 1 − h < z < 1,
//                  1 − z − h/2 for z ≤ 1 − h           (labels b = ±1)
// The curvature and Lipschitz bounds of the classification losses assume
// |b| ≤ 1 (labels ±1); DatasetView::MaxAbsLabel() lets a caller check it.
#pragma once

#include <cstdint>

#include "edgeadmm/real.h"
#include "edgeadmm/status.h"

namespace edgeadmm {

enum class LossKind : uint8_t {
  kLogistic = 0,
  kSquared = 1,
  kSmoothedHinge = 2
};

struct Loss {
  LossKind kind = LossKind::kLogistic;
  // Smoothed-hinge width h > 0 (ignored by the other losses).
  Real smoothing = 1.0;

  // OK, or INVALID_ARGUMENT for an unknown kind or (smoothed hinge) a width h
  // that is not finite and positive.
  Status Validate() const;
  // ℓ(t; b). The logistic form is evaluated without overflow for any t.
  Real Value(Real t, Real b) const;
  // ∂ℓ/∂t at (t; b).
  Real Derivative(Real t, Real b) const;
  // ℓ(t; b), with ∂ℓ/∂t stored in *derivative: one exponential for the
  // logistic loss instead of two (the gradient pass calls this).
  Real ValueAndDerivative(Real t, Real b, Real* derivative) const;
  // ∂²ℓ/∂t² at (t; b); for the smoothed hinge the generalized second
  // derivative (1/h inside the quadratic piece, 0 elsewhere).
  Real Curvature(Real t, Real b) const;
  // sup over t of ∂²ℓ/∂t² for |b| ≤ 1: 1/4 (logistic), 1 (squared), 1/h.
  Real CurvatureBound() const;
  // Lipschitz constant of w ↦ ℓ(aᵀw; b) for ||a||₂ ≤ row_norm and
  // |b| ≤ label_bound: label_bound·row_norm for logistic and smoothed hinge,
  // +infinity for the squared loss (not globally Lipschitz).
  Real LipschitzBound(Real row_norm, Real label_bound) const;
  // Smoothness (gradient Lipschitz constant) of w ↦ ℓ(aᵀw; b) for
  // ||a||₂ ≤ row_norm: CurvatureBound()·row_norm².
  Real SmoothnessBound(Real row_norm) const;
};

}  // namespace edgeadmm
