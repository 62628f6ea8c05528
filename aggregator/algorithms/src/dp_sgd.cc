#include "edgeadmm/algorithms/dp_sgd.h"

#include "edgeadmm/grid_gaussian.h"
#include "unit_support.h"

namespace edgeadmm::algorithms {

host::Error DpSgd::Resolve(jobs::JobConfig& c) const {
  UseRdpForGridNoise(c);
  return host::Error::Ok();
}

host::Error DpSgd::Validate(const jobs::JobConfig& c) const {
  EDGEADMM_HOST_TRY(RefuseProxAdmmOnlyOptions(c));
  if (c.local_steps < 1) {
    return host::Error::InvalidArgument("step.local_steps: must be >= 1");
  }
  return host::Error::Ok();
}

void DpSgd::FillTask(const jobs::JobConfig& c, int64_t /*n*/,
                     int64_t /*iteration*/, edgeadmm_wire_RoundTask& h) const {
  h.algorithm = edgeadmm_wire_Algorithm_ALGORITHM_DP_SGD;
  h.which_params = edgeadmm_wire_RoundTask_dp_sgd_tag;
  h.params.dp_sgd.learning_rate = c.gamma;
  h.params.dp_sgd.local_steps = static_cast<uint32_t>(c.local_steps);
  h.params.dp_sgd.clip = c.clip;
  // Under secure-aggregation the noise is the plan's discrete Gaussian
  // (RoundTask.secure_aggregation), not a Gaussian sigma.
  h.params.dp_sgd.sigma =
      c.policy == privacy::Policy::kSecureAggregation ? 0.0 : c.sigma;
}

host::UploadBound DpSgd::HonestUpload(const jobs::JobConfig& c) const {
  // Δ = Clip(w − z, C) + ξ, ξ ~ N(0, σ²I) (dp_sgd_step.cc).
  return {c.clip, c.sigma};
}

Status DpSgd::ApplyRound(const jobs::JobConfig& c, int64_t n,
                         const std::vector<std::vector<double>>& uploads,
                         RoundNoise& noise, ServerModel& model) const {
  return ApplySum(c, n, SumUploads(uploads, static_cast<size_t>(c.dimension)),
                  static_cast<int64_t>(uploads.size()), noise, model);
}

Status DpSgd::ApplySum(const jobs::JobConfig& c, int64_t /*n*/,
                       const std::vector<double>& sum, int64_t count,
                       RoundNoise& /*noise*/, ServerModel& model) const {
  // Uploads are Δ_i = Clip(w_i − z, C) + ξ_i (dp_sgd_step.h), each already
  // scaled by the device's learning rate γ: average, step, prox.
  const size_t p = static_cast<size_t>(c.dimension);
  if (sum.size() != p || count < 1) return Status::InvalidArgument();
  const double m = static_cast<double>(count);
  std::vector<double> step = sum;
  for (size_t j = 0; j < p; ++j) step[j] = model.z[j] + step[j] / m;
  ProxInto(c, step, model.z);
  return Status::Ok();
}

double DpSgd::OwnNoiseMultiplier(const jobs::JobConfig& c) const {
  // Δ = Clip(w − z, C) + ξ: zero-out sensitivity C, noise σ.
  // Grid rounding charged as in prox-admm (sdk grid_gaussian.h).
  return GridNoiseMultiplier(c.sigma / c.clip,
                             static_cast<size_t>(c.dimension));
}

double DpSgd::SigmaForPlannedSigma(double prox_admm_sigma) const {
  // Sensitivity C with noise σ: half of paper 002's σ gives the same ν.
  return prox_admm_sigma / 2;
}

}  // namespace edgeadmm::algorithms
