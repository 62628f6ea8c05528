#include "edgeadmm/privacy/calibration.h"

#include <cmath>
#include <utility>

#include "checks.h"
#include "edgeadmm/privacy/composition.h"
#include "log_bisection.h"

namespace edgeadmm::privacy {
namespace {
constexpr double kMinMultiplier = 0.05;
constexpr double kMaxMultiplier = 1e6;
}  // namespace

host::ErrorOr<EpsilonReport> ScheduleEpsilon(const Schedule& schedule,
                                             double noise_multiplier,
                                             const Target& target,
                                             const OrderGrid& grid) {
  if (schedule.rounds == 0) {
    return host::Error::InvalidArgument(
        "the schedule needs at least one round");
  }
  EDGEADMM_HOST_TRY(internal::CheckOpenUnit("delta", target.delta));
  Mechanism m;
  m.kind = schedule.kind;
  m.neighbouring = schedule.neighbouring;
  m.sampling_rate = schedule.sampling_rate;
  m.sensitivity = 1.0;
  m.noise_std = noise_multiplier;
  Accountant accountant(grid);
  EDGEADMM_HOST_TRY(accountant.Compose(m, schedule.rounds));
  return accountant.Epsilon(target.delta, target.conversion);
}

host::ErrorOr<Calibration> CalibrateNoiseMultiplier(const Schedule& schedule,
                                                    const Target& target,
                                                    const OrderGrid& grid) {
  EDGEADMM_HOST_TRY(internal::CheckPositive("target epsilon", target.epsilon));
  EDGEADMM_HOST_TRY_ASSIGN(
      EpsilonReport at_max,
      ScheduleEpsilon(schedule, kMaxMultiplier, target, grid));
  if (at_max.epsilon > target.epsilon) {
    return host::Error::OutOfRange(
        "target epsilon " + std::to_string(target.epsilon) +
        " is not reachable with noise multiplier <= 1e6");
  }
  EDGEADMM_HOST_TRY_ASSIGN(
      EpsilonReport at_min,
      ScheduleEpsilon(schedule, kMinMultiplier, target, grid));
  if (at_min.epsilon <= target.epsilon) {
    return host::Error::OutOfRange(
        "target epsilon " + std::to_string(target.epsilon) +
        " is met already at noise multiplier 0.05 (below the supported range)");
  }
  // Invariant: eps(lo) > target >= eps(hi); bisect in log space.
  EpsilonReport best = at_max;  // the report at the bracket's upper end
  EDGEADMM_HOST_TRY_ASSIGN(
      const double hi,
      internal::LogBisect(kMinMultiplier, kMaxMultiplier, 1e-6,
                          [&](double mid) -> host::ErrorOr<bool> {
                            EDGEADMM_HOST_TRY_ASSIGN(
                                EpsilonReport at_mid,
                                ScheduleEpsilon(schedule, mid, target, grid));
                            if (at_mid.epsilon > target.epsilon) return false;
                            best = std::move(at_mid);
                            return true;
                          }));
  return Calibration{hi, best};
}

}  // namespace edgeadmm::privacy
