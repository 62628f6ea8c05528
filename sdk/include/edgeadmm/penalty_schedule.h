// A device's private penalty schedules: the part of a step's params that is
// the device's own policy, never sent (TrainerConfig::penalty_schedule; the
// step that reads it documents the formulas).
#pragma once

#include <limits>

#include "edgeadmm/real.h"

namespace edgeadmm {

// Default γ of the approximate-minima release: the prox solver stops at a
// residual of about (16 machine epsilons)·max(s, ‖v‖) in float32 (≈2e-6·‖v‖,
// prox_tolerance.h) and 1e-10·max(s, ‖v‖) in double, and a solve certified
// by it must come within γ/2: 1e-4 covers max(s, ‖v‖) up to ~25 in float32,
// 1e-6 up to 5000 in double (beyond, the step's gradient solve takes over).
inline constexpr double kPpDefaultOutputRadius =
    sizeof(Real) == sizeof(float) ? 1e-4 : 1e-6;
// Default z: σ = 2γz, so the release's Δ/σ = 1/z + √d/2^kNoiseGridBits
// (0.016 at d = 123).
inline constexpr double kPpDefaultOutputNoiseMultiplier = 200;

// A device's private schedules (the fields of PenaltyPerturbationParams
// that never leave it): η_i(t) = min(η₁q₁^{t−1}, η_max), α_i(t) = α₁q₂^{t−1}.
struct PenaltySchedule {
  double eta1 = 0.5;          // η_i(1) ≥ θ
  double eta_growth = 1.0;    // q₁ ≥ 1
  double eta_max = 1e6;       // cap on η
  double alpha1 = 3.0;        // α_i(1) > 0
  double alpha_growth = 1.0;  // q₂ > 0
  // β_max ≥ 0: the device refuses (RESOURCE_EXHAUSTED) a job whose ε_i(T)
  // (at `delta`) under this schedule would exceed it; +inf: no cap.
  double max_loss = std::numeric_limits<double>::infinity();
  // Approximate-minima release (pp_output_perturbation.h): γ, the largest
  // distance ‖x − x*‖ of a released solve from the exact minimiser, and z,
  // the output noise std σ = 2γz in units of 2γ.
  double output_radius = kPpDefaultOutputRadius;
  double output_noise_multiplier = kPpDefaultOutputNoiseMultiplier;
  double delta = 1e-5;  // δ ∈ (0, 1) of the reported (ε, δ)
};

}  // namespace edgeadmm
