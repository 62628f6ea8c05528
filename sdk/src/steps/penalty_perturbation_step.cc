#include "edgeadmm/penalty_perturbation_step.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "edgeadmm/eigen_maps.h"
#include "edgeadmm/grid_gaussian.h"
#include "edgeadmm/norm_gamma_sampler.h"
#include "edgeadmm/penalty_perturbation_accountant.h"
#include "edgeadmm/pp_draw_box.h"
#include "edgeadmm/pp_gradient_solve.h"
#include "edgeadmm/pp_rounding_margin.h"
#include "edgeadmm/vector_checks.h"

namespace edgeadmm {

Status PenaltyPerturbationParams::Validate(double curvature_bound,
                                           size_t samples) const {
  if (!IsPositive(loss_weight) || loss_weight > static_cast<double>(samples) ||
      !IsPositive(reg_weight) || nodes == 0 || degree == 0 ||
      !IsPositive(theta) || !IsPositive(eta1) || eta1 < theta ||
      !std::isfinite(eta_growth) || eta_growth < 1 || !IsPositive(eta_max) ||
      eta_max < eta1 || !IsPositive(alpha1) || !IsPositive(alpha_growth)) {
    return Status::InvalidArgument();
  }
  if (add_noise &&
      (!IsPositive(output_radius) || !IsPositive(output_noise_multiplier) ||
       !IsPositive(OutputNoiseStd()))) {
    return Status::InvalidArgument();
  }
  if (mode != PenaltyMode::kPenaltyPerturbation &&
      mode != PenaltyMode::kDualVariablePerturbation) {
    return Status::InvalidArgument();
  }
  return CheckPpThetaCondition(curvature_bound, loss_weight, samples,
                               reg_weight, nodes, theta, degree);
}

double PenaltyPerturbationParams::Eta(uint32_t t) const {
  if (mode == PenaltyMode::kDualVariablePerturbation) return theta;
  const double grown = eta1 * std::pow(eta_growth, static_cast<double>(t) - 1);
  return std::min(grown, eta_max);
}

double PenaltyPerturbationParams::Alpha(uint32_t t) const {
  return alpha1 * std::pow(alpha_growth, static_cast<double>(t) - 1);
}

Status PenaltyPerturbationStep::Init(Workspace& ws, const DatasetView& data,
                                     const Loss& loss) {
  initialized_ = false;
  EDGEADMM_TRY(loss.Validate());
  EDGEADMM_TRY(solver_.Init(ws, data, loss, ProxMethod::kAuto));
  return FinishInit(ws, data, loss);
}

Status PenaltyPerturbationStep::FinishInit(Workspace& ws,
                                           const DatasetView& data,
                                           const Loss& loss) {
  EDGEADMM_TRY_ASSIGN(
      box_, PpDrawBoxFor(data.dim(), std::numeric_limits<Real>::epsilon() / 2));
  EDGEADMM_TRY_ASSIGN(v_, ws.Allocate<Real>(data.dim()));
  EDGEADMM_TRY_ASSIGN(noise_, ws.Allocate<Real>(data.dim()));
  EDGEADMM_TRY_ASSIGN(x_, ws.Allocate<Real>(data.dim()));
  EDGEADMM_TRY_ASSIGN(work_x_, ws.Allocate<double>(data.dim()));
  EDGEADMM_TRY_ASSIGN(work_grad_, ws.Allocate<double>(data.dim()));
  loss_ = loss;
  curvature_bound_ = loss.CurvatureBound();
  data_ = data;
  initialized_ = true;
  return Status::Ok();
}

Result<PenaltyPerturbationStep::PublicBounds>
PenaltyPerturbationStep::BoundsAtTheBoxCorner(
    const PenaltyPerturbationParams& params, double eta, double alpha,
    Span<const Real> neighbour_sum, Span<const Real> dual,
    Span<const Real> f) const {
  const size_t d = data_.dim();
  const double unit = std::numeric_limits<Real>::epsilon() / 2;
  // Every admitted draw has r ≤ MaxRadius and ‖ĝ‖ ≥ min_normal_norm, and the
  // rounding bound grows with r and falls with ‖ĝ‖ (pp_draw_box.h).
  const double radius = box_.MaxRadius(alpha);
  EDGEADMM_TRY_ASSIGN(
      const double noise,
      PpNoiseRoundingBound(d, alpha, radius, box_.min_normal_norm, unit));
  // x* = prox_{sC·f̄}(v) is 1-Lipschitz in v and moves by at most |Δ(sC)|
  // with the scale (|ℒ'| ≤ 1, ‖a‖ ≤ 1); ε enters v times 2ηV·s ≤ 1.
  const double deg = static_cast<double>(params.degree);
  const double s = 1 / (params.reg_weight / params.nodes + 2 * eta * deg);
  const auto norm = [d](Span<const Real> x) {
    double sum = 0;
    for (size_t c = 0; c < d; ++c) {
      sum += static_cast<double>(x[c]) * static_cast<double>(x[c]);
    }
    return std::sqrt(sum);
  };
  // The magnitudes of v's terms; ‖ε_fp‖ ≤ r·(1 + 2^-20).
  const double terms =
      s * (eta * (deg * norm(f) + norm(neighbour_sum)) + 2 * norm(dual) +
           2 * eta * deg * radius * (1 + 0x1p-20));
  // v is evaluated in double (within 2^-50·terms) and rounded once to Real
  // (u_R·‖v‖ ≤ u_R·terms); the scale s·C is rounded to Real twice.
  const double centre =
      (unit + 0x1p-50) * terms + 8 * unit * s * params.loss_weight;
  PublicBounds bounds;
  bounds.rounding_margin = (2 * eta * deg * s * noise + centre) * (1 + 0x1p-20);
  bounds.centre_norm = terms * (1 + 0x1p-19);
  if (!std::isfinite(bounds.rounding_margin) ||
      !std::isfinite(bounds.centre_norm)) {
    return Status::InvalidArgument();
  }
  return bounds;
}

Status PenaltyPerturbationStep::DrawInTheBox(GaussianSampler& noise,
                                             double alpha) {
  // The first draw is outside the box with probability ≤ 2·kPpDrawBoxTail
  // (charged); a further miss needs another such event.
  for (int attempt = 0; attempt < kBoxAttempts; ++attempt) {
    NormGammaDraw draw;
    EDGEADMM_TRY(SampleNormGammaNoise(noise, alpha, noise_, &draw));
    if (box_.Admits(alpha, draw)) return Status::Ok();
  }
  return Status::Aborted();
}

Result<PenaltyPerturbationReport> PenaltyPerturbationStep::Run(
    const PenaltyPerturbationParams& params, uint32_t t,
    Span<const Real> neighbour_sum, Span<const Real> dual, Span<Real> f,
    GaussianSampler& noise, DiscreteGaussianSampler& exact_noise) {
  if (!initialized_) return Status::FailedPrecondition();
  EDGEADMM_TRY(params.Validate(curvature_bound_, data_.samples()));
  const size_t d = data_.dim();
  if (!IsFiniteVector(neighbour_sum, d) || !IsFiniteVector(dual, d) ||
      !IsFiniteVector(f, d)) {
    return Status::InvalidArgument();
  }
  PenaltyPerturbationReport report;
  report.eta = params.Eta(t + 1);
  VectorMap eps(noise_.data(), d);
  eps.setZero();
  const double deg_d = static_cast<double>(params.degree);
  const Real s =
      ToReal(1 / (params.reg_weight / params.nodes + 2 * report.eta * deg_d));
  const Real scale = s * ToReal(params.loss_weight);
  PpGradientPlan plan;
  if (params.add_noise) {
    report.alpha = params.Alpha(t + 1);
    EDGEADMM_TRY(DrawInTheBox(noise, report.alpha));
    report.noise_norm = static_cast<double>(eps.norm());
    // Everything that can refuse is decided here, from the public inputs
    // and the box, before a record is read.
    EDGEADMM_TRY_ASSIGN(const PublicBounds bounds,
                        BoundsAtTheBoxCorner(params, report.eta, report.alpha,
                                             neighbour_sum, dual, f));
    report.rounding_margin = bounds.rounding_margin;
    if (!(params.output_radius > report.rounding_margin)) {
      return Status::Aborted();
    }
    EDGEADMM_TRY_ASSIGN(
        plan, PlanPpGradientSolve(data_, loss_, static_cast<double>(scale),
                                  params.output_radius - report.rounding_margin,
                                  bounds.centre_norm));
    report.gradient_floor = plan.floor;
  }

  // Completing the square of (25): f(t+1) = prox_{s·C·f̄}(v), v computed
  // in double from the Real inputs and rounded once to Real.
  const double s_d =
      1 / (params.reg_weight / params.nodes + 2 * report.eta * deg_d);
  const double noise_weight = 2 * report.eta * deg_d;
  for (size_t c = 0; c < d; ++c) {
    const double centre =
        s_d * ((report.eta * (deg_d * static_cast<double>(f[c]) +
                              static_cast<double>(neighbour_sum[c])) -
                2 * static_cast<double>(dual[c])) -
               noise_weight * static_cast<double>(noise_[c]));
    v_[c] = static_cast<Real>(centre);
  }
  VectorMap x(x_.data(), d);
  x = ConstVectorMap(f.data(), d);  // warm start at f_i(t)
  Result<ProxReport> prox = solver_.Solve(v_, scale, x_);
  if (!params.add_noise) {
    if (!prox.ok()) return prox.status();
    report.prox = *prox;
  } else {
    // The solver's answer is certified by ‖x − x*‖ ≤ ‖∇φ(x)‖, the gradient
    // recomputed in double under the plan's error model
    // (PpCertifiedDistance); the rounding margin keeps x*(ε_fp) within
    // reach of the ideal x*(ε*) (pp_rounding_margin.h). A solve that fails
    // or is not certified within γ falls back to the planned gradient
    // descent (pp_gradient_solve.h), so the records decide only which of
    // two releases within γ is made, never whether one is.
    bool certified = false;
    if (prox.ok()) {
      report.prox = *prox;
      report.residual_radius = static_cast<double>(scale) *
                               static_cast<double>(report.prox.kkt_residual);
      EDGEADMM_TRY_ASSIGN(
          report.certified_distance,
          PpCertifiedDistance(plan, data_, loss_, v_, x_, work_x_, work_grad_));
      report.solve_bound = report.certified_distance;
      certified = report.certified_distance + report.rounding_margin <=
                  params.output_radius;
    } else if (prox.status() != Status::Internal()) {
      return prox.status();
    } else {
      report.certified_distance = std::numeric_limits<double>::infinity();
    }
    if (!certified) {
      EDGEADMM_TRY(
          RunPpGradientSolve(plan, data_, loss_, v_, work_x_, work_grad_, x_));
      report.solve_bound = plan.bound;
      report.gradient_steps = plan.steps;
    }
    report.output_noise_std = params.OutputNoiseStd();
    // No norm guard (+inf): the sensitivity is between two centres near
    // the same exact minimiser, not a norm (pp_output_perturbation.h).
    EDGEADMM_TRY(AddGridNoise(exact_noise,
                              std::numeric_limits<Real>::infinity(),
                              ToReal(report.output_noise_std), x_));
  }
  VectorMap(f.data(), d) = x;
  return report;
}

Status PenaltyPerturbationStep::DualUpdate(
    const PenaltyPerturbationParams& params, Span<const Real> f_new,
    Span<const Real> neighbour_sum_new, Span<Real> dual) {
  const size_t d = dual.size();
  if (!IsFiniteVector(f_new, d) || !IsFiniteVector(neighbour_sum_new, d) ||
      !IsPositive(params.theta)) {
    return Status::InvalidArgument();
  }
  VectorMap(dual.data(), d) +=
      ToReal(params.theta / 2) *
      (static_cast<Real>(params.degree) * ConstVectorMap(f_new.data(), d) -
       ConstVectorMap(neighbour_sum_new.data(), d));
  return Status::Ok();
}

}  // namespace edgeadmm
