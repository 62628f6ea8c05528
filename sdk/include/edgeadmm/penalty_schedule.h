// A device's private penalty schedules: the part of a step's params that is
// the device's own policy, never sent (TrainerConfig::penalty_schedule; the
// step that reads it documents the formulas).
#pragma once

#include <limits>

namespace edgeadmm {

// A device's private schedules (the fields of PenaltyPerturbationParams
// that never leave it): η_i(t) = min(η₁q₁^{t−1}, η_max), α_i(t) = α₁q₂^{t−1}.
struct PenaltySchedule {
  double eta1 = 0.5;          // η_i(1) ≥ θ
  double eta_growth = 1.0;    // q₁ ≥ 1
  double eta_max = 1e6;       // cap on η
  double alpha1 = 3.0;        // α_i(1) > 0
  double alpha_growth = 1.0;  // q₂ > 0
  // β_max ≥ 0: the device refuses (RESOURCE_EXHAUSTED) a job whose
  // P_i(T) under this schedule would exceed it; +inf: no cap.
  double max_loss = std::numeric_limits<double>::infinity();
};

}  // namespace edgeadmm
