// Noise of paper 001 (Zhang, Khalili, Liu), Algorithm 1 (penalty
// perturbation): a vector ε ∈ R^d with density ∝ exp(−α‖ε‖₂).
//
// In polar form the density of r = ‖ε‖₂ is ∝ r^(d−1) exp(−α r), i.e.
// r ~ Gamma(shape d, scale 1/α) with mean d/α, and the direction is uniform
// on the unit sphere (a normalised N(0, I_d) draw), independent of r. The
// Gamma draw uses Marsaglia and Tsang, "A simple method for generating gamma
// variables" (ACM TOMS 2000), with the U^(1/a) boost for shapes below 1.
//
// Tails (see gaussian_sampler.h): every uniform is ≥ 2^-1022 and every
// normal has |x| ≤ GaussianSampler::kMaxRadius ≈ 37.64, so for shape ≥ 1 a
// draw never exceeds d(1 + c·37.64)³ (d = shape − 1/3, c = 1/sqrt(9d)), and
// a candidate whose acceptance ratio is below 2^-1022 is never accepted.
// The real draw equals the ideal one unless one of the N uniforms it
// consumes falls below 2^-1022 (the sampler skips those), so the two laws
// differ by at most E[N]·2^-1022 in total variation. Before
// issue 13 (defect 4) the same cut was at |x| ≤ 8.57 and ratios below 2^-53.
// Shape < 1 only: U^(1/a) underflows to 0 when U < 2^(-1075·a) (possible
// for a < 0.951); SampleNormGammaNoise never uses it (shape d ≥ 1).
#pragma once

#include "edgeadmm/gaussian_sampler.h"
#include "edgeadmm/real.h"
#include "edgeadmm/result.h"
#include "edgeadmm/span.h"
#include "edgeadmm/status.h"

namespace edgeadmm {

// A Gamma(shape, scale) draw (mean shape·scale). INVALID_ARGUMENT unless
// shape and scale are finite and positive; DRBG errors as
// GaussianSampler::Uniform01.
Result<double> SampleGamma(GaussianSampler& sampler, double shape,
                           double scale);

// What a draw computed, for its rounding bound (pp_rounding_margin.h):
// the Gamma norm r and the norm ‖ĝ‖ of the normals rounded to Real.
struct NormGammaDraw {
  double radius = 0;
  double normal_norm = 0;
};

// Writes into `out` (d = out.size()) one draw with density ∝ exp(−α‖ε‖₂):
// ‖ε‖ ~ Gamma(d, 1/α), direction uniform; fills `draw` if not null.
// INVALID_ARGUMENT if α ≤ 0 or not finite; an empty `out` is OK and draws
// nothing; DRBG errors as GaussianSampler::Uniform01 (then `out` must be
// discarded).
Status SampleNormGammaNoise(GaussianSampler& sampler, double alpha,
                            Span<Real> out, NormGammaDraw* draw = nullptr);

}  // namespace edgeadmm
