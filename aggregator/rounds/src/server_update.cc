#include "edgeadmm/rounds/server_update.h"

namespace edgeadmm::rounds {
namespace {

// out = prox_{step·r}(v) with the job's regularizer.
void ProxInto(const jobs::JobConfig& config, const std::vector<double>& v,
              std::vector<double>& out) {
  out.resize(v.size());
  config.regularizer.Prox(Span<const Real>(v.data(), v.size()), config.gamma,
                          Span<Real>(out.data(), out.size()));
}

// Sum of the first `length` entries of every upload starting at `offset`.
std::vector<double> SumUploads(const std::vector<std::vector<double>>& uploads,
                               size_t offset, size_t length) {
  std::vector<double> sum(length, 0.0);
  for (const std::vector<double>& u : uploads) {
    for (size_t j = 0; j < length; ++j) sum[j] += u[offset + j];
  }
  return sum;
}

}  // namespace

int64_t UploadLength(const jobs::JobConfig& config) { return config.dimension; }

Status ApplyRound(const jobs::JobConfig& config, int64_t n,
                  const std::vector<std::vector<double>>& uploads,
                  SamplingRng& noise_rng, ServerModel& model) {
  const size_t p = static_cast<size_t>(config.dimension);
  if (uploads.empty() || n < 1 || model.z.size() != p) {
    return Status::InvalidArgument();
  }
  for (const std::vector<double>& u : uploads) {
    if (u.size() != static_cast<size_t>(UploadLength(config))) {
      return Status::InvalidArgument();
    }
  }
  const double m = static_cast<double>(uploads.size());
  switch (config.algorithm) {
    case jobs::Algorithm::kProxAdmm: {
      if (model.state.size() != p) return Status::InvalidArgument();
      std::vector<double> sum = SumUploads(uploads, 0, p);
      if (config.policy == privacy::Policy::kTrustedAggregator) {
        EDGEADMM_TRY(noise_rng.AddNoise(config.lambda * config.sigma, sum));
      }
      for (size_t j = 0; j < p; ++j) {
        model.state[j] += sum[j] / static_cast<double>(n);
      }
      ProxInto(config, model.state, model.z);
      return Status::Ok();
    }
    case jobs::Algorithm::kLinearizedAdmm: {
      const std::vector<double> w_sum = SumUploads(uploads, 0, p);
      for (size_t j = 0; j < p; ++j) model.z[j] = w_sum[j] / m;
      return Status::Ok();
    }
    case jobs::Algorithm::kDpSgd: {
      // Uploads are Δ_i = Clip(w_i − z, C) + ξ_i (dp_sgd_step.h), each
      // already scaled by the device's learning rate γ: average, step, prox.
      std::vector<double> step = SumUploads(uploads, 0, p);
      for (size_t j = 0; j < p; ++j) step[j] = model.z[j] + step[j] / m;
      ProxInto(config, step, model.z);
      return Status::Ok();
    }
  }
  return Status::InvalidArgument();
}

}  // namespace edgeadmm::rounds
