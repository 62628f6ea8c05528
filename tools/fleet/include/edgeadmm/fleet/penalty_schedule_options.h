// The devices' private pp-admm schedules (paper 001 Alg. 1) from
// `edgeadmm-fleet connect` options: η_i(t) = min(η₁q₁^{t−1}, η_max) and
// α_i(t) = α₁q₂^{t−1} per device. Each option holds one value (every
// device) or a comma list with one value per device in the fleet's device
// order (sorted PSK file names: device index i = the i-th enrolled device,
// which is also the job's node i), e.g. paper 001 §5.1's five nodes:
//   --pp-eta1 0.55,0.65,0.6,0.55,0.6 --pp-eta-growth 1.01,1.03,1.1,1.2,1.02
// The schedules never leave the devices; the job's [pp_admm] mode (pp | dvp)
// and θ are public and come with the task (DVP runs η ≡ θ whatever η₁, q₁).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "edgeadmm/host/error.h"
#include "edgeadmm/penalty_perturbation_step.h"

namespace edgeadmm::fleet {

// The option texts ("" = not given: the PenaltySchedule default).
struct PenaltyScheduleOptions {
  std::string eta1;          // --pp-eta1: η_i(1) > 0 (≥ the job's θ)
  std::string eta_growth;    // --pp-eta-growth: q₁ ≥ 1
  std::string eta_max;       // --pp-eta-max: η cap ≥ η₁
  std::string alpha1;        // --pp-alpha1: α_i(1) > 0 (noise 1/scale)
  std::string alpha_growth;  // --pp-alpha-growth: q₂ > 0
  std::string max_loss;      // --pp-max-loss: β_max ≥ 0 (ε_i(T) cap)

  bool empty() const {
    return eta1.empty() && eta_growth.empty() && eta_max.empty() &&
           alpha1.empty() && alpha_growth.empty() && max_loss.empty();
  }
};

// A comma list of finite numbers ("0.5" or "0.55,0.65"); INVALID_ARGUMENT
// naming `option` for an empty item, a non-number or a non-finite value.
host::ErrorOr<std::vector<double>> ParseValueList(const std::string& text,
                                                  const std::string& option);

// The per-device schedules of `devices` devices: each option's single value
// applies to all, a list must have exactly `devices` values.
// INVALID_ARGUMENT (the option and, for a list, the device index named) for
// a bad list, a list of the wrong length or a value out of range (η₁ ≤ 0,
// q₁ < 1, η_max < η₁, α₁ ≤ 0, q₂ ≤ 0, β_max < 0).
host::ErrorOr<std::vector<PenaltySchedule>> ResolvePenaltySchedules(
    const PenaltyScheduleOptions& options, size_t devices);

}  // namespace edgeadmm::fleet
