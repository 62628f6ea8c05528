#include "edgeadmm/norm_gamma_sampler.h"

#include <cmath>

namespace edgeadmm {
namespace {

bool IsPositiveFinite(double x) { return x > 0 && std::isfinite(x); }

// Marsaglia–Tsang (2000) for shape ≥ 1: with d = shape − 1/3 and
// c = 1/sqrt(9d), draw x ~ N(0,1), v = (1 + c·x)³ and accept d·v when
// ln U < x²/2 + d − d·v + d·ln v (with the cheap squeeze
// U < 1 − 0.0331·x⁴ tried first). Returns a Gamma(shape, 1) draw.
Result<double> SampleGammaShapeAtLeastOne(GaussianSampler& sampler,
                                          double shape) {
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  while (true) {
    EDGEADMM_TRY_ASSIGN(const double x, sampler.Standard());
    const double t = 1.0 + c * x;
    if (t <= 0) continue;
    const double v = t * t * t;
    EDGEADMM_TRY_ASSIGN(const double u, sampler.Uniform01());
    const double x2 = x * x;
    if (u < 1.0 - 0.0331 * x2 * x2) return d * v;
    if (std::log(u) < 0.5 * x2 + d * (1.0 - v + std::log(v))) return d * v;
  }
}

}  // namespace

Result<double> SampleGamma(GaussianSampler& sampler, double shape,
                           double scale) {
  if (!IsPositiveFinite(shape) || !IsPositiveFinite(scale)) {
    return Status::InvalidArgument();
  }
  if (shape >= 1) {
    EDGEADMM_TRY_ASSIGN(const double g,
                        SampleGammaShapeAtLeastOne(sampler, shape));
    return g * scale;
  }
  // Shape < 1: Gamma(a) = Gamma(a + 1)·U^(1/a) (Marsaglia–Tsang, §6).
  EDGEADMM_TRY_ASSIGN(const double g,
                      SampleGammaShapeAtLeastOne(sampler, shape + 1.0));
  EDGEADMM_TRY_ASSIGN(const double u, sampler.Uniform01());
  return g * std::pow(u, 1.0 / shape) * scale;
}

Status SampleNormGammaNoise(GaussianSampler& sampler, double alpha,
                            Span<Real> out, NormGammaDraw* draw) {
  if (!IsPositiveFinite(alpha)) return Status::InvalidArgument();
  if (out.empty()) return Status::Ok();
  // Direction: g/‖g‖ with g ~ N(0, I_d) is uniform on the sphere.
  // Drawn and scaled in double, rounded once to Real (no float32 sampler).
  double norm_squared = 0;
  while (norm_squared == 0) {  // ‖g‖ = 0 has probability zero; redraw
    for (Real& x : out) {
      EDGEADMM_TRY_ASSIGN(const double g, sampler.Standard());
      x = static_cast<Real>(g);
      norm_squared += static_cast<double>(x) * static_cast<double>(x);
    }
  }
  // Norm: r ~ Gamma(d, 1/α) (paper 001, Alg. 1).
  EDGEADMM_TRY_ASSIGN(
      const double radius,
      SampleGamma(sampler, static_cast<double>(out.size()), 1.0 / alpha));
  const double normal_norm = std::sqrt(norm_squared);
  const double factor = radius / normal_norm;
  if (draw != nullptr) *draw = NormGammaDraw{radius, normal_norm};
  for (Real& x : out) x = static_cast<Real>(static_cast<double>(x) * factor);
  return Status::Ok();
}

}  // namespace edgeadmm
