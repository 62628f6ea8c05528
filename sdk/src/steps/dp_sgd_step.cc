#include "edgeadmm/dp_sgd_step.h"

#include <cmath>

#include "edgeadmm/clip.h"
#include "edgeadmm/eigen_maps.h"
#include "edgeadmm/grid_gaussian.h"
#include "edgeadmm/linear_model.h"
#include "edgeadmm/vector_checks.h"

namespace edgeadmm {

Status DpSgdParams::Validate() const {
  if (!IsPositive(learning_rate) || local_steps == 0 || !IsPositive(clip) ||
      !std::isfinite(sigma) || sigma < 0) {
    return Status::InvalidArgument();
  }
  return Status::Ok();
}

Status DpSgdStep::Init(Workspace& ws, const DatasetView& data,
                       const Loss& loss) {
  EDGEADMM_TRY(loss.Validate());
  EDGEADMM_TRY_ASSIGN(margins_, ws.Allocate<Real>(data.samples()));
  EDGEADMM_TRY_ASSIGN(grad_, ws.Allocate<Real>(data.dim()));
  EDGEADMM_TRY_ASSIGN(w_, ws.Allocate<Real>(data.dim()));
  loss_ = loss;
  data_ = data;
  initialized_ = true;
  return Status::Ok();
}

Result<DpSgdReport> DpSgdStep::Run(const DpSgdParams& params,
                                   Span<const Real> z,
                                   DiscreteGaussianSampler& noise,
                                   Span<Real> delta) {
  if (!initialized_) return Status::FailedPrecondition();
  EDGEADMM_TRY(params.Validate());
  const size_t p = data_.dim();
  if (!IsFiniteVector(z, p) || delta.size() != p) {
    return Status::InvalidArgument();
  }
  VectorMap w(w_.data(), p);
  VectorMap g(grad_.data(), p);
  ConstVectorMap z_map(z.data(), p);
  w = z_map;
  for (uint32_t e = 0; e < params.local_steps; ++e) {
    LocalGradient(data_, loss_, w_, margins_, grad_);
    w -= params.learning_rate * g;
  }
  DpSgdReport report;
  report.final_loss = LocalObjective(data_, loss_, w_, margins_);
  VectorMap d(delta.data(), p);
  d.noalias() = w - z_map;
  report.update_norm = ClipL2(delta, params.clip);
  report.clipped = report.update_norm > params.clip;
  if (params.sigma > 0) {
    EDGEADMM_TRY(AddGridNoise(noise, params.clip, params.sigma, delta));
  }
  return report;
}

}  // namespace edgeadmm
