#include "edgeadmm/linearized_admm_step.h"

#include <cmath>

#include "edgeadmm/dataset_maps.h"
#include "edgeadmm/grid_gaussian.h"
#include "edgeadmm/vector_checks.h"
#include "math/vector_ops.h"

namespace edgeadmm {
namespace {
// Privacy scalars in double (real.h).
double GaussianFactor(double epsilon, double delta) {
  return std::sqrt(2 * std::log(1.25 / delta)) / epsilon;
}
}  // namespace

Status LinearizedAdmmParams::Validate() const {
  if (!IsPositive(rho) || !std::isfinite(reg_weight) || reg_weight < 0 ||
      providers == 0 || !IsPositive(dw) || !IsPositive(s1) ||
      !std::isfinite(s2) || s2 < 0 || !std::isfinite(s3) || s3 < 0 ||
      !std::isfinite(s4) || s4 < 0 || !IsPositive(epsilon) ||
      !IsPositive(delta) || delta >= 1 ||
      (schedule != LinearizedSchedule::kConvex &&
       schedule != LinearizedSchedule::kSmooth)) {
    return Status::InvalidArgument();
  }
  return regularizer.Validate();
}

Real LinearizedAdmmParams::StepSize(uint32_t k, size_t m) const {
  const Real n = static_cast<Real>(providers);
  const Real k1 = static_cast<Real>(k) + 1;
  if (schedule == LinearizedSchedule::kConvex) {
    return dw / ((s1 + reg_weight * s2 / n) * std::sqrt(2 * k1));
  }
  const Real privacy_term =
      ToReal(2 * static_cast<double>(s1) *
             std::sqrt(4 * static_cast<double>(k1) * std::log(1.25 / delta)) /
             (static_cast<double>(m) * epsilon * static_cast<double>(dw)));
  return 1 / (s3 + reg_weight * s4 / n + privacy_term);
}

Real LinearizedAdmmParams::Sensitivity(uint32_t k, size_t m) const {
  return 2 * s1 / (static_cast<Real>(m) * (rho + 1 / StepSize(k, m)));
}

Real LinearizedAdmmParams::DeviceSensitivity(uint32_t k, size_t m) const {
  return static_cast<Real>(m) * Sensitivity(k, m);
}

Real LinearizedAdmmParams::UpdateBound(uint32_t k, size_t m) const {
  return s1 / (rho + 1 / StepSize(k, m));
}

double LinearizedAdmmParams::GridDeviceSensitivity(uint32_t k, size_t m,
                                                   size_t dim) const {
  return 2 * GridSensitivity(UpdateBound(k, m), NoiseStd(k, m), dim);
}

Real LinearizedAdmmParams::NoiseStd(uint32_t k, size_t m) const {
  return Sensitivity(k, m) * ToReal(GaussianFactor(epsilon, delta));
}

Status LinearizedAdmmStep::Init(Workspace& ws, const DatasetView& data,
                                const Loss& loss) {
  EDGEADMM_TRY(loss.Validate());
  EDGEADMM_TRY_ASSIGN(margins_, ws.Allocate<Real>(data.samples()));
  EDGEADMM_TRY_ASSIGN(row_norms_, ws.Allocate<Real>(data.samples()));
  EDGEADMM_TRY_ASSIGN(grad_, ws.Allocate<Real>(data.dim()));
  EDGEADMM_TRY_ASSIGN(reg_grad_, ws.Allocate<Real>(data.dim()));
  VectorMap(row_norms_.data(), data.samples()).noalias() =
      FeaturesMap(data).rowwise().norm();
  loss_ = loss;
  data_ = data;
  initialized_ = true;
  return Status::Ok();
}

Result<LinearizedAdmmReport> LinearizedAdmmStep::Run(
    const LinearizedAdmmParams& params, uint32_t k, Span<const Real> w_global,
    Span<const Real> gamma, Span<Real> w_tilde,
    DiscreteGaussianSampler& noise) {
  if (!initialized_) return Status::FailedPrecondition();
  EDGEADMM_TRY(params.Validate());
  const size_t d = data_.dim();
  const size_t m = data_.samples();
  if (!IsFiniteVector(w_global, d) || !IsFiniteVector(gamma, d) ||
      !IsFiniteVector(w_tilde, d)) {
    return Status::InvalidArgument();
  }
  ConstVectorMap b = LabelsMap(data_);
  VectorMap t(margins_.data(), m);
  VectorMap g(grad_.data(), d);
  VectorMap c(reg_grad_.data(), d);
  VectorMap wt(w_tilde.data(), d);

  // ḡ: the mean of the per-example gradients ℓ'(t_j)·a_j, each clipped to
  // norm S1, so ‖ḡ‖ ≤ S1.
  internal::MultiplyRows(data_, w_tilde, margins_);
  for (size_t j = 0; j < m; ++j) {
    Real coef = loss_.Derivative(t[j], b[j]);
    const Real norm = std::abs(coef) * row_norms_[j];
    if (norm > params.s1) coef *= params.s1 / norm;
    t[j] = coef / static_cast<Real>(m);
  }
  internal::MultiplyTransposed(data_, margins_, grad_);

  LinearizedAdmmReport report;
  report.step_size = params.StepSize(k, m);
  report.sensitivity = params.Sensitivity(k, m);
  report.noise_std = params.add_noise ? params.NoiseStd(k, m) : 0;

  // (3a) = c + u, computed into reg_grad_ and grad_ so that w̃ changes only
  // after the noise is drawn: c from released values (R'(w̃) at the
  // released w̃), u = −ḡ/(ρ + 1/η) with ‖u‖ ≤ B = S1/(ρ + 1/η).
  const Real inv_eta = 1 / report.step_size;
  const Real denom = params.rho + inv_eta;  // as in UpdateBound
  params.regularizer.Subgradient(w_tilde, reg_grad_);
  c = (params.rho * ConstVectorMap(w_global.data(), d) +
       ConstVectorMap(gamma.data(), d) + inv_eta * wt -
       (params.reg_weight / static_cast<Real>(params.providers)) * c) /
      denom;
  g = -g / denom;
  // (3b): w̃_i^{k+1} = c + the grid release of u (grid_gaussian.h).
  if (report.noise_std > 0) {
    EDGEADMM_TRY(
        AddGridNoise(noise, params.UpdateBound(k, m), report.noise_std, grad_));
  }
  wt = c + g;
  return report;
}

Status LinearizedAdmmStep::DualUpdate(Real rho, Span<const Real> w_tilde,
                                      Span<const Real> w_new_global,
                                      Span<Real> gamma) {
  const size_t d = gamma.size();
  if (!IsPositive(rho) || !IsFiniteVector(w_tilde, d) ||
      !IsFiniteVector(w_new_global, d)) {
    return Status::InvalidArgument();
  }
  VectorMap(gamma.data(), d) -= rho * (ConstVectorMap(w_tilde.data(), d) -
                                       ConstVectorMap(w_new_global.data(), d));
  return Status::Ok();
}

}  // namespace edgeadmm
