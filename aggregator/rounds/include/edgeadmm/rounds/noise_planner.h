// Noise planning: the σ that keeps a whole job within a target (ε, δ),
// calibrated with the accountant library (aggregator/privacy).
#pragma once

#include "edgeadmm/jobs/job_config.h"
#include "edgeadmm/result.h"

namespace edgeadmm::rounds {

// σ for `config.target_epsilon` over `config.rounds` committed rounds:
//  participation: the worst device joins every round and every round has
//    only m_min uploads, so K Gaussian rounds with ν = σ√m_min/(2C);
//  trusted-aggregator: K Poisson(q)-subsampled Gaussians with ν = σ/(2C).
// The σ returned is in these units; an algorithm whose ν per σ differs
// converts it (Algorithm::SigmaForPlannedSigma), and one whose Validate
// refuses target_epsilon is not planned.
// A job charged per participation (algorithms::ParticipationCharge): its
// worst device's k participations, each a Gaussian with the algorithm's ν(σ);
// σ is the smallest whose ν meets the calibrated multiplier.
// Calibrated for the job's accountant: the improved RDP conversion, then,
// for a pld job, the PLD accountant below that (privacy/pld_calibration.h),
// so the ε the job's central ledger reports after K rounds meets the target.
// The ν above is the one the ledger charges: the noise is drawn on a grid
// whose rounding adds to the sensitivity (ν/(1 + ν·√p/2^11) on the devices,
// sdk grid_gaussian.h; SumGridNoiseMultiplier for the gateway's sum,
// algorithms/sum_grid.h), so σ is raised until that charge meets z.
// FAILED_PRECONDITION if no target is set; OUT_OF_RANGE if the target is
// unreachable in the calibrator's range.
Result<double> PlanSigma(const jobs::JobConfig& config);

}  // namespace edgeadmm::rounds
