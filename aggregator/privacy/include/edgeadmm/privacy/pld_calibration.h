// Noise calibration with the PLD accountant: the smallest noise multiplier
// whose PLD epsilon (pld_accountant.h) meets a target (epsilon, delta) for T
// releases of the Poisson-subsampled Gaussian (q = 1: plain Gaussian).
#pragma once

#include <cstdint>

#include "edgeadmm/host/error.h"
#include "edgeadmm/privacy/pld_accountant.h"

namespace edgeadmm::privacy {

struct PldCalibration {
  double noise_multiplier = 0.0;
  double epsilon = 0.0;  // PLD epsilon at that noise multiplier
};

// Bisects (in log nu, to 1e-4 relative) below `upper`, a noise multiplier
// already known to meet the target (e.g. the RDP calibration, since the PLD
// epsilon is never above the RDP one). Returns the upper end of the final
// bracket, so the target is met. INVALID_ARGUMENT on bad q, rounds = 0,
// epsilon not finite and > 0, delta not in (0, 1) or upper not > 0;
// OUT_OF_RANGE when `upper` does not meet the target or nu < 0.05 would be
// needed.
host::ErrorOr<PldCalibration> CalibratePldNoiseMultiplier(
    double q, uint64_t rounds, double epsilon, double delta, double upper,
    const PldOptions& options = {});

}  // namespace edgeadmm::privacy
