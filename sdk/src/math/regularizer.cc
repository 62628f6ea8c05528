#include "edgeadmm/regularizer.h"

#include <cmath>

#include "span_map.h"

namespace edgeadmm {
namespace {

bool ValidWeight(Real x) { return std::isfinite(x) && x >= 0; }

}  // namespace

Status Regularizer::Validate() const {
  if (!ValidWeight(l1) || !ValidWeight(l2)) return Status::InvalidArgument();
  switch (kind) {
    case RegularizerKind::kNone:
      return (l1 == 0 && l2 == 0) ? Status::Ok() : Status::InvalidArgument();
    case RegularizerKind::kL2:
      return l1 == 0 ? Status::Ok() : Status::InvalidArgument();
    case RegularizerKind::kL1:
      return l2 == 0 ? Status::Ok() : Status::InvalidArgument();
    case RegularizerKind::kElasticNet:
      return Status::Ok();
  }
  return Status::InvalidArgument();
}

Real Regularizer::EffectiveL1() const {
  return (kind == RegularizerKind::kL1 || kind == RegularizerKind::kElasticNet)
             ? l1
             : Real{0};
}

Real Regularizer::EffectiveL2() const {
  return (kind == RegularizerKind::kL2 || kind == RegularizerKind::kElasticNet)
             ? l2
             : Real{0};
}

Real Regularizer::Value(Span<const Real> w) const {
  const ConstVectorMap x = internal::AsVector(w);
  return EffectiveL1() * x.lpNorm<1>() +
         Real{0.5} * EffectiveL2() * x.squaredNorm();
}

void Regularizer::Prox(Span<const Real> v, Real step, Span<Real> out) const {
  EDGEADMM_ASSERT(v.size() == out.size());
  EDGEADMM_ASSERT(step >= 0);
  const Real threshold = step * EffectiveL1();
  const Real shrink = 1 / (1 + step * EffectiveL2());
  for (size_t i = 0; i < v.size(); ++i) {
    const Real magnitude = std::fmax(std::fabs(v[i]) - threshold, Real{0});
    out[i] = std::copysign(magnitude, v[i]) * shrink;
  }
}

void Regularizer::Subgradient(Span<const Real> w, Span<Real> out) const {
  EDGEADMM_ASSERT(w.size() == out.size());
  const Real l1_weight = EffectiveL1();
  const Real l2_weight = EffectiveL2();
  for (size_t i = 0; i < w.size(); ++i) {
    const Real sign = (w[i] > 0) ? Real{1} : (w[i] < 0 ? Real{-1} : Real{0});
    out[i] = l1_weight * sign + l2_weight * w[i];
  }
}

}  // namespace edgeadmm
