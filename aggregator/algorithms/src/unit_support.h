// Helpers shared by the algorithm units (not part of the interface).
#pragma once

#include <string>
#include <vector>

#include "edgeadmm/jobs/job_config.h"
#include "edgeadmm/result.h"

namespace edgeadmm::algorithms {

inline Status Invalid(std::string* error, const std::string& message) {
  if (error != nullptr) *error = message;
  return Status::InvalidArgument();
}

// The options only prox-admm implements: noise_in_state (paper 002 as
// printed) and the trusted-aggregator policy.
Status RefuseProxAdmmOnlyOptions(const jobs::JobConfig& config,
                                 std::string* error);

// out = prox_{γ·r}(v) with the job's regularizer r and step γ.
void ProxInto(const jobs::JobConfig& config, const std::vector<double>& v,
              std::vector<double>& out);

// Element-wise sum of the first `length` entries of every upload.
std::vector<double> SumUploads(const std::vector<std::vector<double>>& uploads,
                               size_t length);

}  // namespace edgeadmm::algorithms
