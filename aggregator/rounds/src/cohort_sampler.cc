#include "edgeadmm/rounds/cohort_sampler.h"

#include <algorithm>
#include <numeric>

namespace edgeadmm::rounds {

Result<std::vector<size_t>> SampleCohort(const jobs::JobConfig& config,
                                         size_t n, SamplingRng& rng) {
  std::vector<size_t> cohort;
  if (config.sampling == jobs::SamplingScheme::kPoisson) {
    for (size_t i = 0; i < n; ++i) {
      EDGEADMM_TRY_ASSIGN(const double u, rng.Uniform01());
      if (u < config.q) cohort.push_back(i);
    }
    return cohort;
  }
  const size_t m = static_cast<size_t>(config.m);
  if (m > n) return Status::InvalidArgument();
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  for (size_t i = 0; i < m; ++i) {
    EDGEADMM_TRY_ASSIGN(const uint64_t j, rng.UniformBelow(n - i));
    std::swap(order[i], order[i + static_cast<size_t>(j)]);
  }
  cohort.assign(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(m));
  std::sort(cohort.begin(), cohort.end());
  return cohort;
}

}  // namespace edgeadmm::rounds
