#include "edgeadmm/penalty_perturbation_accountant.h"

#include <cmath>
#include <limits>

#include "edgeadmm/vector_checks.h"

namespace edgeadmm {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// G(r, T) = Σ_{k<T} r^k, stable near r = 1: −expm1(T ln r)/(1 − r).
double GeometricSum(double r, uint32_t terms) {
  if (r == 1) return static_cast<double>(terms);
  const double log_r = std::log(r);
  return -std::expm1(static_cast<double>(terms) * log_r) / -std::expm1(log_r);
}

}  // namespace

Status PpNodeConstants::Validate() const {
  if (!IsPositive(loss_weight) || !IsPositive(curvature_bound) || degree == 0 ||
      samples == 0 || loss_weight > static_cast<double>(samples)) {
    return Status::InvalidArgument();
  }
  return Status::Ok();
}

Status CheckPpThetaCondition(double curvature_bound, double loss_weight,
                             uint64_t samples, double reg_weight,
                             uint32_t nodes, double theta, uint32_t degree) {
  if (!IsPositive(curvature_bound) || !IsPositive(loss_weight) ||
      !IsPositive(reg_weight) || !IsPositive(theta) || samples == 0 ||
      nodes == 0 || degree == 0) {
    return Status::InvalidArgument();
  }
  const double rhs = (static_cast<double>(samples) / loss_weight) *
                     (reg_weight / nodes + 2 * theta * degree);
  if (!(2 * curvature_bound < rhs)) return Status::FailedPrecondition();
  return Status::Ok();
}

Result<double> PpIterationCost(const PpNodeConstants& node, double eta,
                               double alpha) {
  EDGEADMM_TRY(node.Validate());
  if (!IsPositive(eta) || !IsPositive(alpha)) return Status::InvalidArgument();
  const double cost = node.loss_weight *
                      (kPpJacobianConstant * node.curvature_bound + alpha) /
                      (eta * static_cast<double>(node.degree) *
                       static_cast<double>(node.samples));
  if (!std::isfinite(cost)) return Status::InvalidArgument();
  return cost;
}

Result<double> PpGeometricLoss(const PpNodeConstants& node, double eta1,
                               double q1, double alpha1, double q2,
                               uint32_t iterations) {
  EDGEADMM_TRY(node.Validate());
  if (!IsPositive(eta1) || !IsPositive(q1) || !IsPositive(alpha1) ||
      !IsPositive(q2)) {
    return Status::InvalidArgument();
  }
  const double scale =
      node.loss_weight / (static_cast<double>(node.degree) *
                          static_cast<double>(node.samples) * eta1);
  const double loss = scale * (kPpJacobianConstant * node.curvature_bound *
                                   GeometricSum(1 / q1, iterations) +
                               alpha1 * GeometricSum(q2 / q1, iterations));
  if (std::isnan(loss)) return Status::InvalidArgument();
  return loss;
}

Result<double> PpNetworkLoss(Span<const double> node_losses) {
  if (node_losses.size() == 0) return Status::InvalidArgument();
  double worst = 0;
  for (const double p : node_losses) {
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
  rho_ = 0;
  tv_ = 0;
  initialized_ = true;
  return Status::Ok();
}

Status PenaltyPerturbationAccountant::Init(
    const PenaltyPerturbationParams& params, double curvature_bound,
    uint64_t samples) {
  EDGEADMM_TRY(params.Validate(curvature_bound, static_cast<size_t>(samples)));
  PpNodeConstants node;
  node.loss_weight = params.loss_weight;
  node.curvature_bound = curvature_bound;
  node.degree = params.degree;
  node.samples = samples;
  return Init(node);
}

Status PenaltyPerturbationAccountant::Charge(double eta, double alpha) {
  if (!initialized_) return Status::FailedPrecondition();
  EDGEADMM_TRY_ASSIGN(const double cost, PpIterationCost(node_, eta, alpha));
  if (iterations_ == std::numeric_limits<uint32_t>::max()) {
    return Status::OutOfRange();
  }
  const double sum = loss_ + cost;
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

Status PenaltyPerturbationAccountant::ChargeRelease(
    const PenaltyPerturbationParams& params, uint32_t t, size_t dim) {
  if (!initialized_ || !params.add_noise) return Status::FailedPrecondition();
  EDGEADMM_TRY_ASSIGN(
      const double rho,
      PpOutputZcdp(params.output_radius, params.OutputNoiseStd(), dim));
  EDGEADMM_TRY_ASSIGN(const double tv, PpSamplerTotalVariation(dim));
  const double rho_sum = std::nextafter(rho_ + rho, kInfinity);
  const double tv_sum = std::nextafter(tv_ + tv, kInfinity);
  if (!std::isfinite(rho_sum) || !std::isfinite(tv_sum)) {
    return Status::InvalidArgument();
  }
  EDGEADMM_TRY(Charge(params, t));
  rho_ = rho_sum;
  tv_ = tv_sum;
  return Status::Ok();
}

Result<PpPrivacy> PenaltyPerturbationAccountant::Privacy(double delta) const {
  if (!initialized_) return Status::FailedPrecondition();
  return PpApproxDp(loss_, rho_, tv_, delta);
}

Result<bool> PenaltyPerturbationAccountant::WouldExceed(double eta,
                                                        double alpha,
                                                        double budget) const {
  if (!initialized_) return Status::FailedPrecondition();
  if (std::isnan(budget) || budget < 0) return Status::InvalidArgument();
  EDGEADMM_TRY_ASSIGN(const double cost, PpIterationCost(node_, eta, alpha));
  return loss_ + cost > budget;
}

Status PenaltyPerturbationAccountant::Restore(uint32_t iterations,
                                              double loss) {
  if (!initialized_) return Status::FailedPrecondition();
  if (!std::isfinite(loss) || loss < 0 || ((iterations == 0) != (loss == 0))) {
    return Status::InvalidArgument();
  }
  iterations_ = iterations;
  loss_ = loss;
  return Status::Ok();
}

}  // namespace edgeadmm
