// The gateway's noise grid: trusted-aggregator and dp-ftrl noise a sum of
// uploads with the exact discrete Gaussian on a grid (docs/privacy.md,
// "Discrete Gaussian"), like the devices' own noise (sdk grid_gaussian.h),
// never floating-point Box–Muller.
//
// A sum S (p values) with noise std s > 0, grid g = s·2^-kSumGridBits:
//   r = round(S/g) ∈ Z^p (nearest, ties away from zero), then r + k with
//   k_i ~ N_Z(0, 4^kSumGridBits), released as s·((r + k)·2^-bits).
// Sensitivity: a neighbour's sum S' = S − u (one upload u removed, ‖u‖₂ ≤ Δ)
// rounds to r' with |r_i − r'_i| ≤ |u_i|/g + 1 per coordinate (each
// rounding moves by at most 1/2), so ‖r − r'‖₂ ≤ Δ/g + √p in grid steps:
// the rounding of a SUM costs g·√p, twice the g·√p/2 of a device's own
// vector (whose neighbour is the zero vector, rounded exactly). The
// accountants charge the continuous Gaussian's curves: N_Z(μ, σ²) at an
// integer shift μ is, within a factor e^{±10^-136} per coordinate, the
// continuous N(μ, σ² − τ²) post-processed by a shift-commuting rounding
// kernel (τ = kSumGridBridgeTau; docs/privacy.md, "Discrete Gaussian",
// subsampling), so every order and both directions of the subsampled
// discrete mechanism are bounded by the continuous one at σ' = √(σ² − τ²).
// Hence the charged multiplier
//   SumGridNoiseMultiplier(ν, p) = ν·√(1 − τ²/4^bits)/(1 + ν·√p/2^bits).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "edgeadmm/status.h"

namespace edgeadmm::algorithms {

// g = s/2^15: the noise 32,768 grid steps wide. Finer than the devices'
// 2^-10 (sdk grid_gaussian.h) because the gateway's noise is large against
// the sensitivity (ν = s/Δ of 10 to 100 in the a9a runs) and its rounding
// costs ν·√p/2^bits relative: 3.6% at ν = 107, p = 123, where 2^-10 cost
// 116%. 2^15 is the largest power of two whose N_Z(0, 4^bits) the exact
// sampler takes with den = 1 (σ² < 2^31, discrete_gaussian_sampler.h).
inline constexpr uint32_t kSumGridBits = 15;

// τ of the rounding kernel that carries the continuous Gaussian to the
// discrete one: its Poisson-summation error e^{−2π²τ²} is below 10^-137,
// and it costs √(1 − 16/2^30) ≈ 1 − 7.5·10^-9 of the multiplier.
inline constexpr double kSumGridBridgeTau = 4;

// v_i ← round(v_i/g) with g = noise_std·2^-kSumGridBits: v in grid steps
// (integers held exactly in doubles). INVALID_ARGUMENT unless noise_std is
// finite and > 0 and v finite; OUT_OF_RANGE if some |v_i|/g ≥ 2^52.
Status RoundSumToGrid(double noise_std, std::vector<double>& v);

// √(noise_std² − (τg)²) / (Δ + g·√p) for ν = noise_std/Δ:
// ν·√(1 − τ²/4^bits)/(1 + ν·√p/2^bits), rounded down (the charge of a
// rounded sum, above). ν = 0 gives 0.
double SumGridNoiseMultiplier(double nu, size_t dim);

}  // namespace edgeadmm::algorithms
