#include "edgeadmm/norm_gamma_sampler.h"

#include <cmath>

namespace edgeadmm {
namespace {

bool IsPositiveFinite(Real x) { return x > 0 && std::isfinite(x); }

// Marsaglia–Tsang (2000) for shape ≥ 1: with d = shape − 1/3 and
// c = 1/sqrt(9d), draw x ~ N(0,1), v = (1 + c·x)³ and accept d·v when
// ln U < x²/2 + d − d·v + d·ln v (with the cheap squeeze
// U < 1 − 0.0331·x⁴ tried first). Returns a Gamma(shape, 1) draw.
Result<Real> SampleGammaShapeAtLeastOne(GaussianSampler& sampler, Real shape) {
  const Real d = shape - 1.0 / 3.0;
  const Real c = 1.0 / std::sqrt(9.0 * d);
  while (true) {
    EDGEADMM_TRY_ASSIGN(const Real x, sampler.Standard());
    const Real t = 1.0 + c * x;
    if (t <= 0) continue;
    const Real v = t * t * t;
    EDGEADMM_TRY_ASSIGN(const Real u, sampler.Uniform01());
    const Real x2 = x * x;
    if (u < 1.0 - 0.0331 * x2 * x2) return d * v;
    if (std::log(u) < 0.5 * x2 + d * (1.0 - v + std::log(v))) return d * v;
  }
}

}  // namespace

Result<Real> SampleGamma(GaussianSampler& sampler, Real shape, Real scale) {
  if (!IsPositiveFinite(shape) || !IsPositiveFinite(scale)) {
    return Status::InvalidArgument();
  }
  if (shape >= 1) {
    EDGEADMM_TRY_ASSIGN(const Real g,
                        SampleGammaShapeAtLeastOne(sampler, shape));
    return g * scale;
  }
  // Shape < 1: Gamma(a) = Gamma(a + 1)·U^(1/a) (Marsaglia–Tsang, §6).
  EDGEADMM_TRY_ASSIGN(const Real g,
                      SampleGammaShapeAtLeastOne(sampler, shape + 1.0));
  EDGEADMM_TRY_ASSIGN(const Real u, sampler.Uniform01());
  return g * std::pow(u, 1.0 / shape) * scale;
}

Status SampleNormGammaNoise(GaussianSampler& sampler, Real alpha,
                            Span<Real> out) {
  if (!IsPositiveFinite(alpha)) return Status::InvalidArgument();
  if (out.empty()) return Status::Ok();
  // Direction: g/‖g‖ with g ~ N(0, I_d) is uniform on the sphere.
  Real norm_squared = 0;
  while (norm_squared == 0) {  // ‖g‖ = 0 has probability zero; redraw
    for (Real& x : out) {
      EDGEADMM_TRY_ASSIGN(x, sampler.Standard());
      norm_squared += x * x;
    }
  }
  // Norm: r ~ Gamma(d, 1/α) (paper 001, Alg. 1).
  EDGEADMM_TRY_ASSIGN(
      const Real radius,
      SampleGamma(sampler, static_cast<Real>(out.size()), 1.0 / alpha));
  const Real factor = radius / std::sqrt(norm_squared);
  for (Real& x : out) x *= factor;
  return Status::Ok();
}

}  // namespace edgeadmm
