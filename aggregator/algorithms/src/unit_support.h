// Helpers shared by the algorithm units (not part of the interface).
#pragma once

#include <vector>

#include "edgeadmm/host/error.h"
#include "edgeadmm/jobs/job_config.h"

namespace edgeadmm::algorithms {

// The options only prox-admm implements: noise_in_state (paper 002 as
// printed) and the trusted-aggregator policy.
host::Error RefuseProxAdmmOnlyOptions(const jobs::JobConfig& config);

// out = prox_{γ·r}(v) with the job's regularizer r and step γ.
void ProxInto(const jobs::JobConfig& config, const std::vector<double>& v,
              std::vector<double>& out);

// Element-wise sum of the first `length` entries of every upload.
std::vector<double> SumUploads(const std::vector<std::vector<double>>& uploads,
                               size_t length);

}  // namespace edgeadmm::algorithms
