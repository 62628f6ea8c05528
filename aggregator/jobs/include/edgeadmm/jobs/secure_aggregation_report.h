// The plan of a secure-aggregation job as `job create`, `job status`,
// `job ledger` and the export show it (docs/aggregator.md,
// "[secure_aggregation]"): the masking graph (k, s), the distributed
// discrete Gaussian (b, gamma, sigma, n_h), the epsilon it predicts over the
// job's rounds with its meaning, and the wrap bound.
#pragma once

#include "edgeadmm/algorithms/algorithm.h"
#include "edgeadmm/job_types/job_config.h"

namespace edgeadmm::jobs {

// Key "secure_aggregation"; empty (no key) under another policy. A job
// whose plan fails (refused by ValidateJobConfig) gets the reason as text.
algorithms::ReportSection SecureAggregationSection(const JobConfig& config);

}  // namespace edgeadmm::jobs
