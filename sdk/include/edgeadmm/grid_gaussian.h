// Grid Gaussian noise: the exact discrete Gaussian released on a grid, the
// noise every device step that adds Gaussian noise uses (docs/privacy.md,
// "Exact noise on a grid"). Never floating-point Box–Muller.
//
// Release of a vector v with ‖v‖₂ ≤ B (B the clipped update's bound) and
// noise std s > 0, grid g = s·2^-kNoiseGridBits:
//   1. r = round(v/g) ∈ Z^p, nearest (ties away from zero). In exact
//      arithmetic |r_i − v_i/g| ≤ 1/2, so ‖r‖₂ ≤ B/g + √p/2.
//   2. Guard: K = ⌊(B/g + √p/2)²⌋ (exactly, of that double), and while
//      Σ r_i² > K (checked in exact 128-bit integer arithmetic) the largest
//      |r_i| steps one towards zero. This only fires when floating-point
//      error (float32 on the Cortex-M4F) pushed r past the bound, and makes
//      ‖r‖₂ ≤ √K ≤ B/g + √p/2 hold whatever the precision.
//   3. n = r + k, k_i ~ N_Z(0, 4^kNoiseGridBits) (the noise s/g = 2^bits in
//      grid units) from DiscreteGaussianSampler: exact, integer-only.
//   4. v_i = s·(n_i·2^-bits): a function of the integer vector n and public
//      s only, so any rounding here is post-processing.
// Sensitivity (zero-out) of the released integer vector, in the units of v:
// g·√K ≤ B + g·√p/2 = GridSensitivity(B, s, p). Replace-one is twice that.
// The discrete Gaussian's Rényi divergence for an integer shift μ is at most
// α‖μ‖²/(2σ²), the continuous Gaussian's (Canonne, Kamath, Steinke 2020,
// Thm. 4 in one dimension; independent coordinates add up), so the Gaussian RDP
// ledgers hold with the inflated sensitivity, i.e. with the noise multiplier
// GridNoiseMultiplier(ν, p) = ν/(1 + ν·√p/2^(bits+1)) for ν = s/B.
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/discrete_gaussian_sampler.h"
#include "edgeadmm/real.h"
#include "edgeadmm/result.h"
#include "edgeadmm/span.h"
#include "edgeadmm/status.h"

namespace edgeadmm {

// g = s/2^kNoiseGridBits: noise 1024 grid steps wide. The rounding costs
// √p/2 grid steps of sensitivity, ν·√p/2048 relative (0.54% at ν = 1,
// p = 123); each draw takes 48 DRBG bytes on average (measured,
// DiscreteGaussianSamplerHostTest.BytesPerDrawStayBounded; Box–Muller: 8).
inline constexpr uint32_t kNoiseGridBits = 10;

// B + g·√p/2 with g = noise_std·2^-kNoiseGridBits (rounded up): the
// zero-out L2 sensitivity of the grid vector of a v with ‖v‖₂ ≤ B.
double GridSensitivity(double bound, double noise_std, size_t dim);

// The noise multiplier of the grid release: noise_std / GridSensitivity =
// ν/(1 + ν·√p/2^(bits+1)) for ν = noise_std/bound (rounded down). ν = 0
// gives 0.
double GridNoiseMultiplier(double nu, size_t dim);

// Steps 1–2 alone: r = the guarded grid point of v (r.size() = v.size()),
// so that Σ r_i² ≤ K. Errors as AddGridNoise (and INVALID_ARGUMENT for a
// size mismatch). For tests and audits; AddGridNoise keeps r in v.
Status RoundToGrid(Real bound, Real noise_std, Span<const Real> v,
                   Span<int32_t> r);

// The pieces of the release one value at a time, for a vector produced in
// blocks (the admm-sharing share, admm_sharing_step.h) whose L2 bound is
// checked on the integers, not by the guard above:
//   GridNoise:      N_Z(0, 4^kNoiseGridBits), the noise in grid units.
//   GridPoint:      round(value/g), as step 1 (INVALID_ARGUMENT unless value
//                   is finite and noise_std finite and > 0; OUT_OF_RANGE if
//                   |value|/g ≥ 2^30).
//   GridBallBound:  K = ⌊(radius/g)²⌋ with radius/g rounded down and
//                   capped at 2^30 − 1, so an integer vector with Σ r_i² ≤
//                   K has g·‖r‖₂ ≤ radius exactly (INVALID_ARGUMENT unless
//                   radius ≥ 0 is finite and noise_std finite and > 0).
//   GridValue:      s·(n·2^-bits), step 4.
Result<DiscreteGaussian> GridNoise();
Result<int32_t> GridPoint(Real value, Real noise_std);
Result<uint64_t> GridBallBound(Real radius, Real noise_std);
Real GridValue(int64_t n, Real noise_std);

// Replaces v (‖v‖₂ ≤ bound expected) by its grid release with noise std
// noise_std (steps 1–4 above). bound = +inf: no guard (a run nothing
// accounts). INVALID_ARGUMENT unless noise_std is finite and > 0, bound > 0
// and v is finite; OUT_OF_RANGE if bound/g or some |v_i|/g is ≥ 2^30 (ν =
// s/bound below 2^-20); sampler errors are passed on (v then partly noised:
// discard it).
Status AddGridNoise(DiscreteGaussianSampler& sampler, Real bound,
                    Real noise_std, Span<Real> v);

}  // namespace edgeadmm
