#include "edgeadmm/penalty_perturbation_accountant.h"

#include <cmath>
#include <limits>

#include "edgeadmm/vector_checks.h"

namespace edgeadmm {
namespace {

// G(r, T) = Σ_{k<T} r^k, stable near r = 1: −expm1(T ln r)/(1 − r).
Real GeometricSum(Real r, uint32_t terms) {
  if (r == 1) return static_cast<Real>(terms);
  const Real log_r = std::log(r);
  return -std::expm1(static_cast<Real>(terms) * log_r) / -std::expm1(log_r);
}

}  // namespace

Status PpNodeConstants::Validate() const {
  if (!IsPositive(loss_weight) || !IsPositive(curvature_bound) || degree == 0 ||
      samples == 0 || loss_weight > static_cast<Real>(samples)) {
    return Status::InvalidArgument();
  }
  return Status::Ok();
}

Status CheckPpThetaCondition(Real curvature_bound, Real loss_weight,
                             uint64_t samples, Real reg_weight, uint32_t nodes,
                             Real theta, uint32_t degree) {
  if (!IsPositive(curvature_bound) || !IsPositive(loss_weight) ||
      !IsPositive(reg_weight) || !IsPositive(theta) || samples == 0 ||
      nodes == 0 || degree == 0) {
    return Status::InvalidArgument();
  }
  const Real rhs = (static_cast<Real>(samples) / loss_weight) *
                   (reg_weight / nodes + 2 * theta * degree);
  if (!(2 * curvature_bound < rhs)) return Status::FailedPrecondition();
  return Status::Ok();
}

Result<Real> PpIterationCost(const PpNodeConstants& node, Real eta,
                             Real alpha) {
  EDGEADMM_TRY(node.Validate());
  if (!IsPositive(eta) || !IsPositive(alpha)) return Status::InvalidArgument();
  const Real cost =
      node.loss_weight * (kPpJacobianConstant * node.curvature_bound + alpha) /
      (eta * static_cast<Real>(node.degree) * static_cast<Real>(node.samples));
  if (!std::isfinite(cost)) return Status::InvalidArgument();
  return cost;
}

Result<Real> PpGeometricLoss(const PpNodeConstants& node, Real eta1, Real q1,
                             Real alpha1, Real q2, uint32_t iterations) {
  EDGEADMM_TRY(node.Validate());
  if (!IsPositive(eta1) || !IsPositive(q1) || !IsPositive(alpha1) ||
      !IsPositive(q2)) {
    return Status::InvalidArgument();
  }
  const Real scale =
      node.loss_weight /
      (static_cast<Real>(node.degree) * static_cast<Real>(node.samples) * eta1);
  const Real loss = scale * (kPpJacobianConstant * node.curvature_bound *
                                 GeometricSum(1 / q1, iterations) +
                             alpha1 * GeometricSum(q2 / q1, iterations));
  if (std::isnan(loss)) return Status::InvalidArgument();
  return loss;
}

Result<Real> PpNetworkLoss(Span<const Real> node_losses) {
  if (node_losses.size() == 0) return Status::InvalidArgument();
  Real worst = 0;
  for (const Real p : node_losses) {
    if (std::isnan(p) || p < 0) return Status::InvalidArgument();
    if (p > worst) worst = p;
  }
  return worst;
}

Status PenaltyPerturbationAccountant::Init(const PpNodeConstants& node) {
  EDGEADMM_TRY(node.Validate());
  node_ = node;
  iterations_ = 0;
  loss_ = 0;
  initialized_ = true;
  return Status::Ok();
}

Status PenaltyPerturbationAccountant::Init(
    const PenaltyPerturbationParams& params, Real curvature_bound,
    uint64_t samples) {
  EDGEADMM_TRY(params.Validate(curvature_bound, static_cast<size_t>(samples)));
  PpNodeConstants node;
  node.loss_weight = params.loss_weight;
  node.curvature_bound = curvature_bound;
  node.degree = params.degree;
  node.samples = samples;
  return Init(node);
}

Status PenaltyPerturbationAccountant::Charge(Real eta, Real alpha) {
  if (!initialized_) return Status::FailedPrecondition();
  EDGEADMM_TRY_ASSIGN(const Real cost, PpIterationCost(node_, eta, alpha));
  if (iterations_ == std::numeric_limits<uint32_t>::max()) {
    return Status::OutOfRange();
  }
  const Real sum = loss_ + cost;
  if (!std::isfinite(sum)) return Status::InvalidArgument();
  loss_ = sum;
  ++iterations_;
  return Status::Ok();
}

Status PenaltyPerturbationAccountant::Charge(
    const PenaltyPerturbationParams& params, uint32_t t) {
  if (!initialized_ || !params.add_noise) return Status::FailedPrecondition();
  if (t == 0) return Status::InvalidArgument();
  return Charge(params.Eta(t), params.Alpha(t));
}

Result<bool> PenaltyPerturbationAccountant::WouldExceed(Real eta, Real alpha,
                                                        Real budget) const {
  if (!initialized_) return Status::FailedPrecondition();
  if (std::isnan(budget) || budget < 0) return Status::InvalidArgument();
  EDGEADMM_TRY_ASSIGN(const Real cost, PpIterationCost(node_, eta, alpha));
  return loss_ + cost > budget;
}

Status PenaltyPerturbationAccountant::Restore(uint32_t iterations, Real loss) {
  if (!initialized_) return Status::FailedPrecondition();
  if (!std::isfinite(loss) || loss < 0 || ((iterations == 0) != (loss == 0))) {
    return Status::InvalidArgument();
  }
  iterations_ = iterations;
  loss_ = loss;
  return Status::Ok();
}

}  // namespace edgeadmm
