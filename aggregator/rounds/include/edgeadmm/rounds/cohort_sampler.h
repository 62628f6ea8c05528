// Cohort sampling (paper 002 Alg. 3 and its experiments, pitfall P7: the
// accountant must match the scheme): Poisson with rate q, or exactly m
// devices without replacement.
#pragma once

#include <cstddef>
#include <vector>

#include "edgeadmm/jobs/job_config.h"
#include "edgeadmm/rounds/sampling_rng.h"

namespace edgeadmm::rounds {

// Indices in [0, n) of the round's cohort, ascending. Poisson: each index
// independently with probability q. Fixed: a uniform m-subset (partial
// Fisher–Yates). INVALID_ARGUMENT if m > n; DRBG errors as SamplingRng.
Result<std::vector<size_t>> SampleCohort(const jobs::JobConfig& config,
                                         size_t n, SamplingRng& rng);

}  // namespace edgeadmm::rounds
