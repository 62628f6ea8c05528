#include "edgeadmm/prox_admm_step.h"

#include <cmath>

#include "edgeadmm/clip.h"
#include "edgeadmm/grid_gaussian.h"
#include "edgeadmm/vector_checks.h"
#include "math/vector_ops.h"

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
  initialized_ = false;
  EDGEADMM_TRY(solver_.Init(ws, data, loss, ProxMethod::kAuto));
  return FinishInit(ws, data);
}

Status ProxAdmmStep::FinishInit(Workspace& ws, const DatasetView& data) {
  EDGEADMM_TRY_ASSIGN(x_, ws.Allocate<Real>(data.dim()));
  data_ = data;
  initialized_ = true;
  return Status::Ok();
}

Result<ProxAdmmReport> ProxAdmmStep::Run(const ProxAdmmParams& params,
                                         Span<const Real> z, Span<Real> u,
                                         DiscreteGaussianSampler& noise,
                                         Span<Real> delta_u) {
  if (!initialized_) return Status::FailedPrecondition();
  EDGEADMM_TRY(params.Validate());
  const size_t p = data_.dim();
  if (!IsFiniteVector(z, p) || !IsFiniteVector(u, p) || delta_u.size() != p) {
    return Status::InvalidArgument();
  }
  const Real* z_in = z.data();
  Real* u_io = u.data();
  Real* d = delta_u.data();

  // eq. (6): x = prox_{s f_i}(2z − u), warm-started from the previous x. The
  // prox input v = 2z − u lives in delta_u until Δu overwrites it.
  for (size_t i = 0; i < p; ++i) d[i] = 2 * z_in[i] - u_io[i];
  ProxAdmmReport report;
  EDGEADMM_TRY_ASSIGN(report.prox, solver_.Solve(delta_u, params.step, x_));

  // Δu = 2λ·Clip(x − z, C) + λη. Noise is drawn before u changes so a DRBG
  // failure leaves the state untouched.
  for (size_t i = 0; i < p; ++i) d[i] = x_[i] - z_in[i];
  report.step_norm = internal::Norm(delta_u);
  if (params.clip != kNoClip) {
    report.clipped = report.step_norm > params.clip;
    ClipL2(delta_u, params.clip);
  }
  internal::Scale(2 * params.lambda, delta_u);
  if (params.sigma > 0 && !params.noise_in_state) {
    // The state takes the noiseless term (kept in the solver's scratch);
    // only the upload carries noise.
    const Span<Real> noiseless = solver_.scratch();
    for (size_t i = 0; i < p; ++i) noiseless[i] = d[i];
    EDGEADMM_TRY(
        AddGridNoise(noise, params.UpdateBound(), params.NoiseStd(), delta_u));
    internal::Axpy(1, noiseless, u);
    return report;
  }
  if (params.sigma > 0) {
    EDGEADMM_TRY(
        AddGridNoise(noise, params.UpdateBound(), params.NoiseStd(), delta_u));
  }
  internal::Axpy(1, delta_u, u);
  return report;
}

}  // namespace edgeadmm
