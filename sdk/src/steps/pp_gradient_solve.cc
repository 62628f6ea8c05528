#include "edgeadmm/pp_gradient_solve.h"

#include <cmath>
#include <limits>

#include "edgeadmm/vector_checks.h"

namespace edgeadmm {
namespace {

constexpr double kUnit = 0x1p-53;  // double unit roundoff

// grad = λ·(1/m)Σ ℓ'(a_jᵀx; b_j)·a_j + x − v, in double.
void Gradient(const DatasetView& data, const Loss& loss, Span<const Real> v,
              double lambda, Span<const double> x, Span<double> grad) {
  const size_t d = data.dim();
  for (size_t c = 0; c < d; ++c) grad[c] = 0;
  for (size_t j = 0; j < data.samples(); ++j) {
    const Span<const Real> a = data.Row(j);
    double margin = 0;
    for (size_t c = 0; c < d; ++c) margin += static_cast<double>(a[c]) * x[c];
    const double slope = static_cast<double>(
        loss.Derivative(static_cast<Real>(margin), data.Label(j)));
    for (size_t c = 0; c < d; ++c) grad[c] += slope * static_cast<double>(a[c]);
  }
  const double weight = lambda / static_cast<double>(data.samples());
  for (size_t c = 0; c < d; ++c) {
    grad[c] = weight * grad[c] + x[c] - static_cast<double>(v[c]);
  }
}

}  // namespace

Result<PpGradientPlan> PlanPpGradientSolve(const DatasetView& data,
                                           const Loss& loss, double lambda,
                                           double radius, double centre_bound) {
  const size_t d = data.dim();
  if (d == 0 || !IsPositive(lambda) || !IsPositive(radius) ||
      !(centre_bound >= 0) || !std::isfinite(centre_bound)) {
    return Status::InvalidArgument();
  }
  const double unit_real = std::numeric_limits<Real>::epsilon() / 2;
  // A ≥ max ‖a_j‖, at least 1 + 2^-20 so that data in the domain (norms
  // at most 1, up to rounding) all get the same A.
  const double rows =
      std::fmax(1 + 0x1p-20, static_cast<double>(data.MaxRowNorm()));
  const double labels = std::fmax(1.0, static_cast<double>(data.MaxAbsLabel()));
  const double lipschitz =
      std::fmax(1.0, static_cast<double>(loss.LipschitzBound(
                         static_cast<Real>(rows), static_cast<Real>(labels))));
  const double curvature = static_cast<double>(loss.CurvatureBound());
  if (!std::isfinite(lipschitz) || !std::isfinite(curvature)) {
    return Status::Aborted();
  }
  const double smooth = 1 + lambda * curvature * rows * rows;  // L
  const double start = lambda * lipschitz;                     // ‖v − x*‖
  // Every iterate is within start (+ floor) of x*, ‖x*‖ ≤ ‖v‖ + start.
  const double reach = centre_bound + 2 * start + radius;
  const double m = static_cast<double>(data.samples());
  const double dd = static_cast<double>(d);
  // One step's error: ℓ' at a margin rounded to Real (c₁·A·u_R·reach) and
  // within 8 u_R, the double sums over m records and d coordinates, the
  // update x − g/L.
  const double gradient_error =
      lambda * rows * (curvature * rows * unit_real * reach + 8 * unit_real) +
      4 * (m + dd) * kUnit *
          (lambda * rows * (lipschitz + rows * reach) + reach + centre_bound);
  const double step_error = gradient_error / smooth + 4 * kUnit * reach;
  PpGradientPlan plan;
  plan.lambda = lambda;
  plan.centre_bound = centre_bound;
  plan.smoothness = smooth;
  plan.reach = reach;
  plan.gradient_error = gradient_error;
  plan.floor = 2 * (smooth * step_error + unit_real * reach);
  if (!(plan.floor < radius)) return Status::Aborted();
  // The computed step 1/L is within 8u of the exact one (and below
  // 2/(L + 1)), so each step contracts by at most q = 1 − (1 − 8u)/L; one
  // step more covers the rounding of the logarithms.
  const double q = 1 - (1 - 8 * kUnit) / smooth;
  const double wanted = radius - plan.floor;
  double steps = 0;
  if (start > wanted) {
    steps = std::ceil(std::log(start / wanted) / -std::log(q)) + 1;
  }
  if (!(steps <= kPpGradientMaxSteps)) return Status::Aborted();
  plan.steps = static_cast<uint32_t>(steps);
  plan.bound = std::pow(q, steps) * start + plan.floor;
  return plan;
}

namespace {

// The checks RunPpGradientSolve and PpCertifiedDistance share.
Status CheckSolveInputs(const PpGradientPlan& plan, const DatasetView& data,
                        Span<const Real> v, size_t x_size, size_t work_x_size,
                        size_t work_grad_size) {
  const size_t d = data.dim();
  if (d == 0 || v.size() != d || x_size != d || work_x_size != d ||
      work_grad_size != d || !IsPositive(plan.lambda) ||
      !(plan.smoothness >= 1) || !IsFiniteVector(v, d)) {
    return Status::InvalidArgument();
  }
  double v_norm = 0;
  for (Real e : v) v_norm += static_cast<double>(e) * static_cast<double>(e);
  if (!(std::sqrt(v_norm) <= plan.centre_bound)) {
    return Status::InvalidArgument();
  }
  return Status::Ok();
}

}  // namespace

Status RunPpGradientSolve(const PpGradientPlan& plan, const DatasetView& data,
                          const Loss& loss, Span<const Real> v,
                          Span<double> work_x, Span<double> work_grad,
                          Span<Real> x) {
  EDGEADMM_TRY(CheckSolveInputs(plan, data, v, x.size(), work_x.size(),
                                work_grad.size()));
  const size_t d = data.dim();
  for (size_t c = 0; c < d; ++c) work_x[c] = static_cast<double>(v[c]);
  for (uint32_t k = 0; k < plan.steps; ++k) {
    Gradient(data, loss, v, plan.lambda, work_x, work_grad);
    for (size_t c = 0; c < d; ++c) work_x[c] -= work_grad[c] / plan.smoothness;
  }
  for (size_t c = 0; c < d; ++c) x[c] = static_cast<Real>(work_x[c]);
  return Status::Ok();
}

Result<double> PpCertifiedDistance(const PpGradientPlan& plan,
                                   const DatasetView& data, const Loss& loss,
                                   Span<const Real> v, Span<const Real> x,
                                   Span<double> work_x,
                                   Span<double> work_grad) {
  EDGEADMM_TRY(CheckSolveInputs(plan, data, v, x.size(), work_x.size(),
                                work_grad.size()));
  const size_t d = data.dim();
  const double dd = static_cast<double>(d);
  if (!IsFiniteVector(x, d)) return std::numeric_limits<double>::infinity();
  double x_norm = 0;
  for (size_t c = 0; c < d; ++c) {
    work_x[c] = static_cast<double>(x[c]);
    x_norm += work_x[c] * work_x[c];
  }
  // The computed norm is within (d + 2)u of the exact one.
  if (!(std::sqrt(x_norm) * (1 - (dd + 2) * kUnit) <= plan.reach)) {
    return std::numeric_limits<double>::infinity();
  }
  Gradient(data, loss, v, plan.lambda, work_x, work_grad);
  double g_norm = 0;
  for (size_t c = 0; c < d; ++c) g_norm += work_grad[c] * work_grad[c];
  // ‖x − x*‖ ≤ ‖∇φ(x)‖ ≤ ‖g‖ + gradient error (1-strong convexity), the
  // computed ‖g‖ raised by its own rounding and the sum by one more.
  return (std::sqrt(g_norm) * (1 + 4 * (dd + 2) * kUnit) +
          plan.gradient_error) *
         (1 + 4 * kUnit);
}

}  // namespace edgeadmm
