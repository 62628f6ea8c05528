// What the rounds of a job under privacy.policy "secure-aggregation" run
// (docs/privacy.md, "secure-aggregation"): the SecAgg+ masking graph for the
// fixed cohort m, its dropouts D and colluders t (secure_aggregation/
// parameters.h), and the distributed discrete Gaussian (modulus 2^b, grid
// gamma, each device's sigma) that meets the job's target epsilon over its
// rounds against the gateway and any t devices (secure_aggregation/
// ddg_parameters.h). A function of the config alone: the gateway recomputes
// it whenever it loads the job, and every device of every round gets the
// same plan (a fresh public rotation seed per round travels beside it).
#pragma once

#include <cstdint>

#include "edgeadmm/host/error.h"
#include "edgeadmm/job_types/job_config.h"
#include "edgeadmm/secagg/ddg_plan.h"
#include "edgeadmm/secure_aggregation/ddg_parameters.h"
#include "edgeadmm/secure_aggregation/parameters.h"

namespace edgeadmm::jobs {

struct SecureAggregationPlan {
  secure_aggregation::SecAggParameters secagg;  // degree k, threshold s
  secure_aggregation::DdgParameters ddg;        // b, gamma, sigma, epsilon
  DdgRoundPlan round;                           // what each device encodes with
  uint32_t cohort = 0;         // m, the devices asked each round
  uint32_t min_survivors = 0;  // m - D: fewer masked inputs abort the round
  uint32_t mask_length = 0;    // words per masked input: d' = padded p
};

// INVALID_ARGUMENT when the job cannot run under the policy (another
// policy, an algorithm whose server update is not a function of the sum
// (algorithms::SumRounds) or whose uploads have no norm bound, Poisson
// sampling, no target epsilon, m - D <= t, a given degree the graph rules
// refuse); OUT_OF_RANGE when no parameters meet the goals
// (ChooseSecAggParameters, ChooseDdgParameters).
host::ErrorOr<SecureAggregationPlan> PlanSecureAggregation(
    const JobConfig& config);

}  // namespace edgeadmm::jobs
