#include "edgeadmm/loss.h"

#include <cmath>
#include <limits>

#include "edgeadmm/assert.h"

namespace edgeadmm {
namespace {

// log(1 + e^{-z}) without overflow: max(−z, 0) + log1p(e^{−|z|}).
Real SoftplusOfNegative(Real z) {
  return std::fmax(-z, Real{0}) + std::log1p(std::exp(-std::fabs(z)));
}

// 1 / (1 + e^{z}) without overflow.
Real SigmoidOfNegative(Real z) {
  if (z >= 0) {
    const Real e = std::exp(-z);
    return e / (1 + e);
  }
  return 1 / (1 + std::exp(z));
}

}  // namespace

Status Loss::Validate() const {
  switch (kind) {
    case LossKind::kLogistic:
    case LossKind::kSquared:
      return Status::Ok();
    case LossKind::kSmoothedHinge:
      if (std::isfinite(smoothing) && smoothing > 0) return Status::Ok();
      return Status::InvalidArgument();
  }
  return Status::InvalidArgument();
}

Real Loss::Value(Real t, Real b) const {
  switch (kind) {
    case LossKind::kLogistic:
      return SoftplusOfNegative(b * t);
    case LossKind::kSquared:
      return Real{0.5} * (t - b) * (t - b);
    case LossKind::kSmoothedHinge: {
      const Real z = b * t;
      if (z >= 1) return 0;
      if (z <= 1 - smoothing) return 1 - z - Real{0.5} * smoothing;
      return (1 - z) * (1 - z) / (2 * smoothing);
    }
  }
  EDGEADMM_PANIC("invalid LossKind");
}

Real Loss::Derivative(Real t, Real b) const {
  switch (kind) {
    case LossKind::kLogistic:
      return -b * SigmoidOfNegative(b * t);
    case LossKind::kSquared:
      return t - b;
    case LossKind::kSmoothedHinge: {
      const Real z = b * t;
      if (z >= 1) return 0;
      if (z <= 1 - smoothing) return -b;
      return -b * (1 - z) / smoothing;
    }
  }
  EDGEADMM_PANIC("invalid LossKind");
}

Real Loss::ValueAndDerivative(Real t, Real b, Real* derivative) const {
  if (kind != LossKind::kLogistic) {
    *derivative = Derivative(t, b);
    return Value(t, b);
  }
  // With z = bt and e = e^{−|z|}: ℓ = max(−z, 0) + log1p(e) and
  // σ(−z) = e/(1+e) for z ≥ 0, 1/(1+e) for z < 0.
  const Real z = b * t;
  const Real e = std::exp(-std::fabs(z));
  *derivative = -b * ((z >= 0 ? e : Real{1}) / (1 + e));
  return std::fmax(-z, Real{0}) + std::log1p(e);
}

Real Loss::Curvature(Real t, Real b) const {
  switch (kind) {
    case LossKind::kLogistic: {
      // b²·σ(z)·σ(−z) = b²·e/(1+e)² with e = e^{−|z|}.
      const Real e = std::exp(-std::fabs(b * t));
      return b * b * e / ((1 + e) * (1 + e));
    }
    case LossKind::kSquared:
      return 1;
    case LossKind::kSmoothedHinge: {
      const Real z = b * t;
      if (z >= 1 || z <= 1 - smoothing) return 0;
      return b * b / smoothing;
    }
  }
  EDGEADMM_PANIC("invalid LossKind");
}

Real Loss::CurvatureBound() const {
  switch (kind) {
    case LossKind::kLogistic:
      return Real{0.25};
    case LossKind::kSquared:
      return 1;
    case LossKind::kSmoothedHinge:
      return 1 / smoothing;
  }
  EDGEADMM_PANIC("invalid LossKind");
}

Real Loss::LipschitzBound(Real row_norm, Real label_bound) const {
  if (kind == LossKind::kSquared) return std::numeric_limits<Real>::infinity();
  return label_bound * row_norm;
}

Real Loss::SmoothnessBound(Real row_norm) const {
  return CurvatureBound() * row_norm * row_norm;
}

}  // namespace edgeadmm
