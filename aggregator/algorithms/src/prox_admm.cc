#include "edgeadmm/algorithms/prox_admm.h"

#include <cmath>

#include "edgeadmm/algorithms/sum_grid.h"
#include "edgeadmm/grid_gaussian.h"
#include "unit_support.h"

namespace edgeadmm::algorithms {

host::Error ProxAdmm::Resolve(jobs::JobConfig& c) const {
  UseRdpForGridNoise(c);
  return host::Error::Ok();
}

host::Error ProxAdmm::Validate(const jobs::JobConfig& /*config*/) const {
  // Every policy is implemented for paper 002 (docs/privacy.md, section 2);
  // `participation` with noise_in_state is refused by the job's checks.
  return host::Error::Ok();
}

void ProxAdmm::FillTask(const jobs::JobConfig& c, int64_t /*n*/,
                        int64_t /*iteration*/,
                        edgeadmm_wire_RoundTask& h) const {
  const bool trusted = c.policy == privacy::Policy::kTrustedAggregator;
  h.algorithm = edgeadmm_wire_Algorithm_ALGORITHM_FEDERATED_PRIVATE_ADMM;
  h.which_params = edgeadmm_wire_RoundTask_federated_tag;
  h.params.federated.lambda = c.lambda;
  h.params.federated.gamma = c.gamma;
  h.params.federated.clip = c.clip;
  // Under secure-aggregation the noise is the plan's discrete Gaussian
  // (RoundTask.secure_aggregation), not a Gaussian sigma.
  const bool secure = c.policy == privacy::Policy::kSecureAggregation;
  h.params.federated.sigma = trusted || secure ? 0.0 : c.sigma;
  // ValidateJobConfig refuses true under `participation` (privacy.md).
  h.params.federated.noise_in_state = !trusted && c.noise_in_state;
}

host::UploadBound ProxAdmm::HonestUpload(const jobs::JobConfig& c) const {
  // Δu = 2λ·Clip(x − z, C) + λη, η ~ N(0, σ²I), with the σ FillTask sends
  // (0 under trusted-aggregator, whose sensitivity needs exactly 2λC).
  const double sigma =
      c.policy == privacy::Policy::kTrustedAggregator ? 0.0 : c.sigma;
  return {2 * c.lambda * c.clip, c.lambda * sigma};
}

Status ProxAdmm::ApplyRound(const jobs::JobConfig& c, int64_t n,
                            const std::vector<std::vector<double>>& uploads,
                            RoundNoise& noise, ServerModel& model) const {
  return ApplySum(c, n, SumUploads(uploads, static_cast<size_t>(c.dimension)),
                  static_cast<int64_t>(uploads.size()), noise, model);
}

Status ProxAdmm::ApplySum(const jobs::JobConfig& c, int64_t n,
                          const std::vector<double>& uploads_sum,
                          int64_t /*count*/, RoundNoise& noise,
                          ServerModel& model) const {
  // Paper 002 Alg. 3 with pitfall P3: ŝ += (1/n)·Σ Δu_i (under
  // trusted-aggregator the sum on the grid plus discrete Gaussian noise of
  // std λσ, sum_grid.h), z = prox_{γr}(ŝ) (eq. (5)); n is
  // the job's enrolled device count, not m.
  const size_t p = static_cast<size_t>(c.dimension);
  if (model.state.size() != p || uploads_sum.size() != p) {
    return Status::InvalidArgument();
  }
  std::vector<double> sum = uploads_sum;
  if (c.policy == privacy::Policy::kTrustedAggregator) {
    EDGEADMM_TRY(noise.AddNoise(c.lambda * c.sigma, sum));
  }
  for (size_t j = 0; j < p; ++j) {
    model.state[j] += sum[j] / static_cast<double>(n);
  }
  ProxInto(c, model.state, model.z);
  return Status::Ok();
}

double ProxAdmm::OwnNoiseMultiplier(const jobs::JobConfig& c) const {
  // Δu = 2λ·Clip(x − z, C) + λη: zero-out sensitivity 2λC, noise λσ.
  const double nu = c.sigma / (2 * c.clip);
  // Under trusted-aggregator the gateway rounds the SUM to its grid and
  // noises it there (sum_grid.h): the rounding adds g·√p to the sensitivity.
  // Otherwise the device draws its noise on a grid (sdk grid_gaussian.h):
  // its own vector's rounding adds g·√p/2.
  const size_t p = static_cast<size_t>(c.dimension);
  if (c.policy == privacy::Policy::kTrustedAggregator) {
    return SumGridNoiseMultiplier(nu, p);
  }
  return GridNoiseMultiplier(nu, p);
}

}  // namespace edgeadmm::algorithms
