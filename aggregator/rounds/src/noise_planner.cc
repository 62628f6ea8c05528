#include "edgeadmm/rounds/noise_planner.h"

#include <cmath>

#include "edgeadmm/algorithms/registry.h"
#include "edgeadmm/log.h"
#include "edgeadmm/privacy/calibration.h"
#include "edgeadmm/privacy/pld_calibration.h"
#include "edgeadmm/privacy/policy.h"

namespace edgeadmm::rounds {

Result<double> PlanSigma(const jobs::JobConfig& config) {
  if (!config.noise_planned()) return Status::FailedPrecondition();
  privacy::Schedule schedule;
  schedule.rounds = static_cast<uint64_t>(config.rounds);
  const bool trusted = config.policy == privacy::Policy::kTrustedAggregator;
  if (trusted) {
    schedule.kind = privacy::MechanismKind::kPoissonSubsampledGaussian;
    schedule.sampling_rate = config.q;
  } else {
    schedule.neighbouring = privacy::Neighbouring::kZeroOut;
  }
  privacy::Target target;
  target.epsilon = config.target_epsilon;
  target.delta = config.delta;
  target.conversion = privacy::Conversion::kImproved;
  auto calibration = privacy::CalibrateNoiseMultiplier(schedule, target);
  if (!calibration.ok()) {
    EDGEADMM_LOG_ERROR("noise planning: %s",
                       calibration.error().ToString().c_str());
    return calibration.error().status();
  }
  double z = calibration->noise_multiplier;
  if (config.accountant == jobs::CentralAccountant::kPld) {
    // A pld job's ledger reports the PLD ε (never above RDP's): plan with it,
    // starting from the RDP answer, which meets the target.
    auto pld = privacy::CalibratePldNoiseMultiplier(
        trusted ? config.q : 1.0, schedule.rounds, target.epsilon, target.delta,
        z);
    if (!pld.ok()) {
      EDGEADMM_LOG_ERROR("noise planning (pld): %s",
                         pld.error().ToString().c_str());
      return pld.error().status();
    }
    z = pld->noise_multiplier;
  }
  // The charged mechanism's noise multiplier z for the policy (m_k = m_min,
  // the worst case, with t = max_colluders noises known to the observer).
  auto sigma = privacy::SigmaForNoiseMultiplier(
      config.policy, z, config.clip, static_cast<uint64_t>(config.m_min),
      static_cast<uint64_t>(config.max_colluders));
  if (!sigma.ok()) return sigma.error().status();
  // The policy formulas are paper 002's (noise λσ on sensitivity 2λC); the
  // algorithm converts to its own σ for the same ν.
  return algorithms::Get(config.algorithm).SigmaForPlannedSigma(*sigma);
}

}  // namespace edgeadmm::rounds
