#include "edgeadmm/prox_admm_step.h"

#include <cmath>

#include "edgeadmm/clip.h"
#include "edgeadmm/vector_checks.h"

namespace edgeadmm {

Status ProxAdmmParams::Validate() const {
  const bool clip_ok = clip == kNoClip || IsPositive(clip);
  if (!IsPositive(lambda) || lambda > 1 || !IsPositive(step) || !clip_ok ||
      !std::isfinite(sigma) || sigma < 0) {
    return Status::InvalidArgument();
  }
  return Status::Ok();
}

Status ProxAdmmStep::Init(Workspace& ws, const DatasetView& data,
                          const Loss& loss) {
  EDGEADMM_TRY(loss.Validate());
  EDGEADMM_TRY(solver_.Init(ws, data, loss, ProxMethod::kAuto));
  EDGEADMM_TRY_ASSIGN(prox_input_, ws.Allocate<Real>(data.dim()));
  EDGEADMM_TRY_ASSIGN(x_, ws.Allocate<Real>(data.dim()));
  data_ = data;
  initialized_ = true;
  return Status::Ok();
}

Result<ProxAdmmReport> ProxAdmmStep::Run(const ProxAdmmParams& params,
                                         Span<const Real> z, Span<Real> u,
                                         GaussianSampler& noise,
                                         Span<Real> delta_u) {
  if (!initialized_) return Status::FailedPrecondition();
  EDGEADMM_TRY(params.Validate());
  const size_t p = data_.dim();
  if (!IsFiniteVector(z, p) || !IsFiniteVector(u, p) || delta_u.size() != p) {
    return Status::InvalidArgument();
  }
  ConstVectorMap z_map(z.data(), p);
  VectorMap u_map(u.data(), p);
  VectorMap v_map(prox_input_.data(), p);
  VectorMap x_map(x_.data(), p);
  VectorMap d_map(delta_u.data(), p);

  // eq. (6): x = prox_{s f_i}(2z − u), warm-started from the previous x.
  v_map.noalias() = 2 * z_map - u_map;
  ProxAdmmReport report;
  EDGEADMM_TRY_ASSIGN(report.prox, solver_.Solve(prox_input_, params.step, x_));

  // Δu = 2λ·Clip(x − z, C) + λη. Noise is drawn before u changes so a DRBG
  // failure leaves the state untouched.
  d_map.noalias() = x_map - z_map;
  report.step_norm = d_map.norm();
  if (params.clip != kNoClip) {
    report.clipped = report.step_norm > params.clip;
    ClipL2(delta_u, params.clip);
  }
  d_map *= 2 * params.lambda;
  if (params.sigma > 0 && !params.noise_in_state) {
    // The state takes the noiseless term; only the upload carries noise.
    v_map = d_map;
    EDGEADMM_TRY(noise.AddNoise(params.NoiseStd(), delta_u));
    u_map += v_map;
    return report;
  }
  if (params.sigma > 0) {
    EDGEADMM_TRY(noise.AddNoise(params.NoiseStd(), delta_u));
  }
  u_map += d_map;
  return report;
}

}  // namespace edgeadmm
