#include "edgeadmm/rounds/noise_planner.h"

#include <cmath>

#include "edgeadmm/algorithms/registry.h"
#include "edgeadmm/log.h"
#include "edgeadmm/privacy/calibration.h"
#include "edgeadmm/privacy/pld_calibration.h"
#include "edgeadmm/privacy/policy.h"

namespace edgeadmm::rounds {
namespace {

// The smallest σ (within 1e-9 relative, from above) with nu_at(σ) ≥ z,
// searching up from `start` by doubling, then bisecting; ν grows with σ.
template <typename NuAt>
Result<double> SmallestSigmaReaching(NuAt nu_at, double z, double start) {
  double low = 0.0;
  double high = start;
  while (nu_at(high) < z) {
    low = high;
    high *= 2;
    if (!(high < 1e12)) return Status::OutOfRange();  // ν is bounded above
  }
  for (int i = 0; i < 200 && high - low > 1e-9 * high; ++i) {
    const double mid = 0.5 * (low + high);
    (nu_at(mid) >= z ? high : low) = mid;
  }
  return high;
}

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

privacy::Target TargetOf(const jobs::JobConfig& config) {
  privacy::Target target;
  target.epsilon = config.target_epsilon;
  target.delta = config.delta;
  target.conversion = privacy::Conversion::kImproved;
  return target;
}

// The noise multiplier for `rounds` rounds at rate q meeting the target:
// `rdp_z` (the RDP calibration) under rdp; under pld the smallest whose PLD ε
// meets it (a pld job's ledger reports the PLD ε, never above RDP's),
// searched from `rdp_z`, which meets the target.
Result<double> ForAccountant(const jobs::JobConfig& config, double q,
                             uint64_t rounds, double rdp_z) {
  if (config.accountant != jobs::CentralAccountant::kPld) return rdp_z;
  auto pld = privacy::CalibratePldNoiseMultiplier(
      q, rounds, config.target_epsilon, config.delta, rdp_z);
  if (!pld.ok()) {
    EDGEADMM_LOG_ERROR("noise planning (pld): %s",
                       pld.error().ToString().c_str());
    return pld.error().status();
  }
  return pld->noise_multiplier;
}

// A job charged per participation (algorithm.h, ParticipationCharge): its
// worst device takes part k = MaxParticipations times, each a Gaussian with
// ν(σ) = ParticipationNoiseMultiplier. The schedule's z comes from the
// calibrator; σ is the smallest with ν(σ) ≥ z (ν grows with σ), found by
// bisection on the algorithm's own ν, so the plan charges what the ledger
// charges (grid rounding included).
Result<double> PlanParticipationSigma(
    const jobs::JobConfig& config,
    const algorithms::ParticipationCharge& charge) {
  privacy::Schedule schedule;
  schedule.neighbouring = privacy::Neighbouring::kZeroOut;
  schedule.rounds = static_cast<uint64_t>(charge.MaxParticipations(config));
  auto calibration =
      privacy::CalibrateNoiseMultiplier(schedule, TargetOf(config));
  if (!calibration.ok()) {
    EDGEADMM_LOG_ERROR("noise planning: %s",
                       calibration.error().ToString().c_str());
    return calibration.error().status();
  }
  // q = 1: the k participations are Gaussian rounds (no amplification).
  auto z = ForAccountant(config, 1.0, schedule.rounds,
                         calibration->noise_multiplier);
  if (!z.ok()) return z.status();
  jobs::JobConfig trial = config;
  return SmallestSigmaReaching(
      [&](double sigma) {
        trial.sigma = sigma;
        return charge.ParticipationNoiseMultiplier(trial);
      },
      *z, config.clip);
}

}  // namespace

Result<double> PlanSigma(const jobs::JobConfig& config) {
  if (!config.noise_planned()) return Status::FailedPrecondition();
  const algorithms::Algorithm& algorithm = algorithms::Get(config.algorithm);
  if (algorithm.participation_charge() != nullptr) {
    return PlanParticipationSigma(config, *algorithm.participation_charge());
  }
  privacy::Schedule schedule;
  schedule.rounds = static_cast<uint64_t>(config.rounds);
  const bool trusted = config.policy == privacy::Policy::kTrustedAggregator;
  if (trusted) {
    schedule.kind = privacy::MechanismKind::kPoissonSubsampledGaussian;
    schedule.sampling_rate = config.q;
  } else {
    schedule.neighbouring = privacy::Neighbouring::kZeroOut;
  }
  const privacy::Target target = TargetOf(config);
  auto calibration = privacy::CalibrateNoiseMultiplier(schedule, target);
  if (!calibration.ok()) {
    EDGEADMM_LOG_ERROR("noise planning: %s",
                       calibration.error().ToString().c_str());
    return calibration.error().status();
  }
  auto planned = ForAccountant(config, trusted ? config.q : 1.0,
                               schedule.rounds, calibration->noise_multiplier);
  if (!planned.ok()) return planned.status();
  const double z = *planned;
  // The charged mechanism's noise multiplier z for the policy (m_k = m_min,
  // the worst case, with t = max_colluders noises known to the observer).
  auto sigma = privacy::SigmaForNoiseMultiplier(
      config.policy, z, config.clip, static_cast<uint64_t>(config.m_min),
      static_cast<uint64_t>(config.max_colluders));
  if (!sigma.ok()) return sigma.error().status();
  // The policy formulas are paper 002's (noise λσ on sensitivity 2λC); the
  // algorithm converts to its own σ for the same ν, then σ is raised until
  // the ledger's charge (with the grid's rounding) is z.
  return SmallestSigmaReaching(
      [&](double s) { return ChargedMultiplier(config, s); }, z,
      algorithm.SigmaForPlannedSigma(*sigma));
}

}  // namespace edgeadmm::rounds
