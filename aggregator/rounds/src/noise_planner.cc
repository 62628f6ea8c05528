#include "edgeadmm/rounds/noise_planner.h"

#include <cmath>

#include "edgeadmm/algorithms/registry.h"
#include "edgeadmm/log.h"
#include "edgeadmm/privacy/calibration.h"
#include "edgeadmm/privacy/pld_calibration.h"
#include "edgeadmm/privacy/policy.h"

namespace edgeadmm::rounds {
namespace {

// The central noise multiplier the job's ledger charges for a round of m_min
// uploads when the devices send σ (ledger_book.cc, CentralMechanism): the
// algorithm's own multiplier, with the grid's rounding (sdk grid_gaussian.h,
// algorithms/sum_grid.h), times √(m_min − t) under participation.
double ChargedMultiplier(const jobs::JobConfig& config, double sigma) {
  jobs::JobConfig c = config;
  c.sigma = sigma;
  const double own = algorithms::Get(c.algorithm).OwnNoiseMultiplier(c);
  if (c.policy != privacy::Policy::kParticipation) return own;
  return privacy::ParticipationNoiseMultiplier(
      own, static_cast<uint64_t>(c.m_min),
      static_cast<uint64_t>(c.max_colluders));
}

// The smallest σ (to a relative 2^-50) ≥ σ0 whose charged multiplier is at
// least z: the grid's rounding deflates ν by 1/(1 + ν·√p/2^11) (devices)
// or 1/(1 + ν·√p/2^10) (the gateway's sum), so σ0, planned for the
// unrounded mechanism, is raised. ChargedMultiplier increases with σ.
Result<double> InflateForCharge(const jobs::JobConfig& config, double sigma0,
                                double z) {
  if (ChargedMultiplier(config, sigma0) >= z) return sigma0;
  double lo = sigma0;
  double hi = sigma0;
  for (int i = 0; ChargedMultiplier(config, hi) < z; ++i) {
    if (i == 64) {
      EDGEADMM_LOG_ERROR(
          "noise planning: the grid's charge cannot reach the "
          "planned noise multiplier %g",
          z);
      return Status::OutOfRange();
    }
    lo = hi;
    hi *= 1.125;
  }
  while (hi - lo > hi * 0x1p-50) {
    const double mid = lo + (hi - lo) / 2;
    (ChargedMultiplier(config, mid) >= z ? hi : lo) = mid;
  }
  return hi;
}

}  // namespace

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
  // algorithm converts to its own σ for the same ν, then σ is raised until
  // the ledger's charge (with the grid's rounding) is z.
  return InflateForCharge(
      config, algorithms::Get(config.algorithm).SigmaForPlannedSigma(*sigma),
      z);
}

}  // namespace edgeadmm::rounds
