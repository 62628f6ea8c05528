#include "edgeadmm/rounds/noise_planner.h"

#include <cmath>

#include "edgeadmm/log.h"
#include "edgeadmm/privacy/calibration.h"

namespace edgeadmm::rounds {

Result<double> PlanSigma(const jobs::JobConfig& config) {
  if (!config.noise_planned()) return Status::FailedPrecondition();
  privacy::Schedule schedule;
  schedule.rounds = static_cast<uint64_t>(config.rounds);
  const bool trusted = config.policy == jobs::Policy::kTrustedAggregator;
  if (trusted) {
    schedule.kind = privacy::MechanismKind::kPoissonSubsampledGaussian;
    schedule.sampling_rate = config.q;
  } else {
    schedule.neighbouring = privacy::Neighbouring::kZeroOut;
  }
  privacy::Target target;
  target.epsilon = config.target_epsilon;
  target.delta = config.delta;
  target.conversion = privacy::Conversion::kClassic;
  auto calibration = privacy::CalibrateNoiseMultiplier(schedule, target);
  if (!calibration.ok()) {
    EDGEADMM_LOG_ERROR("noise planning: %s",
                       calibration.error().ToString().c_str());
    return calibration.error().status();
  }
  const double z = calibration->noise_multiplier;
  return trusted ? 2 * config.clip * z
                 : 2 * config.clip * z /
                       std::sqrt(static_cast<double>(config.m_min));
}

}  // namespace edgeadmm::rounds
