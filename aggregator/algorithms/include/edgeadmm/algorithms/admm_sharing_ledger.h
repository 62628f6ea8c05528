// admm-sharing's per-party ledger (papers 000/003; docs/privacy.md
// "admm-sharing (papers 000/003): per party"): what the gateway charges for
// one party's accepted upload, at which δ, and the labels of that ε
// (mechanism, neighbouring relation, conversion, observer, status). The
// charges are composed by rounds::PartyLedger (scope "party:<id>").
#pragma once

#include <cstdint>
#include <string>

#include "edgeadmm/algorithms/algorithm.h"
#include "edgeadmm/job_types/job_config.h"

namespace edgeadmm::algorithms {

// The job's δ of every per-party ε (plan and ledger): admm_sharing.
// target_delta when given, else privacy.delta.
double SharingDelta(const jobs::JobConfig& config);

// The L2 sensitivities every charge uses, derived from the clips the
// devices enforce (docs/privacy.md, "Bounded shares"): a party clips its
// noiseless share to ||D_m x̃_m||₂ ≤ C and its partial scores to
// ||D_test,m x̃_m||₂ ≤ C_s, so replacing any part of its data (one record,
// or its whole block) moves them by at most Δ = 2C and Δ_s = 2C_s.
// C = share_clip, else sensitivity/2 (a Δ given alone is the clip's
// definition, enforced on the device); C_s likewise from score_clip or
// score_sensitivity. ValidateAdmmSharing refuses a Δ inconsistent with C.
double SharingShareSensitivity(const jobs::AdmmSharingConfig& s);
double SharingScoreSensitivity(const jobs::AdmmSharingConfig& s);

// What the gateway's per-party ledger charges for party m's upload of
// iteration t (1-based), as a noise multiplier ν = 1/ratio:
// - rigorous: the share's Gaussian, ν = σ/Δ (Δ = SharingShareSensitivity,
//   Δ_s = SharingScoreSensitivity); the last iteration of a job
//   with Gaussian partial scores releases both as one Gaussian of ratio
//   √((Δ/σ)² + (Δ_s/σ_s)²) (Mironov 2017, Prop. 1, 7: the RDP of the two
//   adds), what the device ledger charges (LocalTrainer::RunAdmmSharing);
// - none, or exact partial scores: ν = 0 (an uncovered release: +inf);
// - paper: ν = 0 too: the gateway does not charge the paper's mechanism
//   (noise in parameter space, heuristic C: no Gaussian of known
//   sensitivity on the share), so it has no bound of its own (+inf); the
//   paper's claim stays in the plan, labelled.
// Always true (every admm-sharing job has the ledger).
bool SharingPartyMechanism(const jobs::JobConfig& config, int64_t iteration,
                           double& noise_multiplier);

// The labels of the per-party ε of a job (delta: SharingDelta).
PartyLedgerMeaning DescribeSharingLedger(const jobs::JobConfig& config);

}  // namespace edgeadmm::algorithms
