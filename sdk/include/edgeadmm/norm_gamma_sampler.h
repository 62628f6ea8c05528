// Noise of paper 001 (Zhang, Khalili, Liu), Algorithm 1 (penalty
// perturbation): a vector ε ∈ R^d with density ∝ exp(−α‖ε‖₂).
//
// In polar form the density of r = ‖ε‖₂ is ∝ r^(d−1) exp(−α r), i.e.
// r ~ Gamma(shape d, scale 1/α) with mean d/α, and the direction is uniform
// on the unit sphere (a normalised N(0, I_d) draw), independent of r. The
// Gamma draw uses Marsaglia and Tsang, "A simple method for generating gamma
// variables" (ACM TOMS 2000), with the U^(1/a) boost for shapes below 1.
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
Result<Real> SampleGamma(GaussianSampler& sampler, Real shape, Real scale);

// Writes into `out` (d = out.size()) one draw with density ∝ exp(−α‖ε‖₂):
// ‖ε‖ ~ Gamma(d, 1/α), direction uniform. INVALID_ARGUMENT if α ≤ 0 or not
// finite; an empty `out` is OK and draws nothing; DRBG errors as
// GaussianSampler::Uniform01 (then `out` must be discarded).
Status SampleNormGammaNoise(GaussianSampler& sampler, Real alpha,
                            Span<Real> out);

}  // namespace edgeadmm
