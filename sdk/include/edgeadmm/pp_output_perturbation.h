// The approximate-minima release of a pp-admm step (Iyengar, Near, Song,
// Thakkar, Thakurta, Wang, IEEE S&P 2019, Alg. 1 / Thm. 3.1, applied to
// paper 001's penalty perturbation; the argument is in docs/privacy.md,
// "pp-admm"), and the (ε, δ) it costs.
//
// The device solves the perturbed primal of paper 001 (eq. 25), whose
// strong-convexity modulus is Λ = ρ/N + 2η_i(t)V_i (the loss is convex and
// ½‖f‖² is 1-strongly convex), to a point x with ‖x − x*‖₂ ≤ γ (x* its
// exact minimiser; ‖x − x*‖ ≤ ‖∇‖/Λ), and releases the exact grid
// Gaussian of x (grid_gaussian.h, no norm guard) with std σ = 2γz.
// For one sample changed, the exact minimisers of the two datasets are
// coupled by paper 001's bijection, so the two centres differ by at most
// 2γ, and their grid points (nearest rounding, each coordinate within
// ½ + 2^-23 steps of its exact quotient) by at most
//     Δ = 2γ + g·√d·(1 + 2^-22),  g = σ·2^-kNoiseGridBits,
// an integer vector in grid units. The discrete Gaussian's Rényi
// divergence for that shift is at most α·Δ²/(2σ²) (Canonne, Kamath,
// Steinke 2020), i.e. Δ²/(2σ²)-zCDP per iteration.
//
// Per node over T iterations (RDP adaptive composition, Mironov 2017
// Prop. 1; a pure ε-DP conditional has D_α ≤ ε for every α):
//     D_α ≤ P_i + α·ρ,   P_i = Σ_t paper 001's term,  ρ = Σ_t Δ_t²/(2σ_t²)
//     ε(δ) = P_i + ρ + 2√(ρ ln(1/δ))       (Mironov 2017 Prop. 3 at the best α)
// for the ideal Gamma-norm noise; the sampler departs from it with total
// variation at most τ_t = (2d + 8)·2^-1022 + 2^-35·(1 + √d) per draw
// (norm_gamma_sampler.h: at most 2 uniforms per normal, 2 expected attempts of
// 3 uniforms for the Gamma norm, each uniform and each acceptance test within
// 2^-1022) plus 2·2^-36·(1 + √d) for decisions that rounding may flip
// (pp_rounding_margin.h), so the run is (ε, δ + (1 + e^ε)·Σ_t τ_t)-DP.
// Scalars only; no heap.
#pragma once

#include <cstddef>

#include "edgeadmm/result.h"

namespace edgeadmm {

// Per-coordinate rounding slack of the grid (1 + 2^-22 grid steps between
// two centres' grid points, beyond their distance).
inline constexpr double kPpGridRoundingSlack = 1.0 + 0x1p-22;

// Δ = 2γ + g·√d·kPpGridRoundingSlack, g = noise_std·2^-kNoiseGridBits,
// rounded up: the L2 distance between the grid points of two centres each
// within γ of the same exact minimiser. INVALID_ARGUMENT unless γ and
// noise_std are finite and positive and dim ≥ 1.
Result<double> PpOutputSensitivity(double radius, double noise_std, size_t dim);

// Δ²/(2σ²), rounded up: one release's zCDP (its RDP at order α is α times
// this). Errors as PpOutputSensitivity.
Result<double> PpOutputZcdp(double radius, double noise_std, size_t dim);

// τ = (2d + 8)·2^-1022 + 2·PpDecisionFlipProbability(d) + 2·kPpDrawBoxTail:
// per step, the probability that the run's draw is not the ideal draw
// ∝ exp(−α‖ε‖) under the coupling of pp_rounding_margin.h, or is not the
// first one drawn because that one fell outside the certified box
// (norm_gamma_sampler.h, pp_draw_box.h). INVALID_ARGUMENT for dim 0.
Result<double> PpSamplerTotalVariation(size_t dim);

struct PpPrivacy {
  double epsilon = 0;
  double delta = 0;
};

// (ε, δ') for the pure part `pure` (Σ P_i terms), the zCDP sum `rho`, the
// sampler's total variation sum `tv` and the target δ ∈ (0, 1):
// ε = pure + ρ + 2√(ρ ln(1/δ)), δ' = δ + (1 + e^ε)·tv (rounded up; δ' is
// capped at 1). INVALID_ARGUMENT for negative or non-finite inputs or δ
// outside (0, 1).
Result<PpPrivacy> PpApproxDp(double pure, double rho, double tv, double delta);

}  // namespace edgeadmm
