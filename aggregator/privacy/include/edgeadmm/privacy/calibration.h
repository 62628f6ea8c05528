// Calibration: the smallest noise multiplier that keeps a planned schedule
// within a target (epsilon, delta), found by bisection (epsilon decreases
// monotonically in the noise multiplier for every mechanism here).
#pragma once

#include <cstdint>

#include "edgeadmm/host/error.h"
#include "edgeadmm/privacy/conversion.h"
#include "edgeadmm/privacy/epsilon_report.h"
#include "edgeadmm/privacy/mechanism.h"
#include "edgeadmm/privacy/rdp_orders.h"

namespace edgeadmm::privacy {

// `rounds` identical applications of one mechanism kind, with the given
// sampling rate (1 for the plain Gaussian) and neighbouring relation.
struct Schedule {
  MechanismKind kind = MechanismKind::kGaussian;
  Neighbouring neighbouring = Neighbouring::kAddRemove;
  double sampling_rate = 1.0;
  uint64_t rounds = 1;
};

struct Target {
  double epsilon = 1.0;
  double delta = 1e-5;
  Conversion conversion = Conversion::kImproved;
};

struct Calibration {
  double noise_multiplier = 0.0;  // noise std / sensitivity
  EpsilonReport achieved;         // epsilon of the schedule at that noise
};

// The epsilon of `schedule` at noise multiplier z. INVALID_ARGUMENT on bad
// input (rate, z, delta, rounds = 0).
host::ErrorOr<EpsilonReport> ScheduleEpsilon(
    const Schedule& schedule, double noise_multiplier, const Target& target,
    const OrderGrid& grid = OrderGrid::Default());

// Smallest noise multiplier z in [0.05, 1e6] (to 1e-6 relative) with
// epsilon(schedule, z) <= target.epsilon. INVALID_ARGUMENT on bad input;
// OUT_OF_RANGE when even z = 1e6 does not reach the target, or z = 0.05
// already does (outside the supported range).
host::ErrorOr<Calibration> CalibrateNoiseMultiplier(
    const Schedule& schedule, const Target& target,
    const OrderGrid& grid = OrderGrid::Default());

}  // namespace edgeadmm::privacy
