#include "edgeadmm/privacy/paper_accountants.h"

#include <cmath>

#include "checks.h"

namespace edgeadmm::privacy {
namespace {

host::Error CheckIterations(uint64_t iterations) {
  if (iterations == 0) {
    return host::Error::InvalidArgument(
        "the number of iterations must be >= 1");
  }
  return host::Error::Ok();
}

// The (epsilon, delta, T) triple every (eps, delta)-DP accountant takes.
host::Error CheckEpsilonDeltaIterations(const char* epsilon_name,
                                        double epsilon, const char* delta_name,
                                        double delta, uint64_t iterations) {
  EDGEADMM_HOST_TRY(internal::CheckPositive(epsilon_name, epsilon));
  EDGEADMM_HOST_TRY(internal::CheckOpenUnit(delta_name, delta));
  return CheckIterations(iterations);
}

// Sum_{t=0..T-1} r^t, with the limit T when r == 1.
double GeometricSum(double r, double iterations) {
  if (std::fabs(r - 1.0) < 1e-15) return iterations;
  return (1.0 - std::pow(r, iterations)) / (1.0 - r);
}

}  // namespace

host::ErrorOr<MomentsAccountantResult> Paper004MomentsAccountant(
    double step_epsilon, double delta, uint64_t iterations) {
  EDGEADMM_HOST_TRY(CheckEpsilonDeltaIterations("epsilon", step_epsilon,
                                                "delta", delta, iterations));
  const double t = static_cast<double>(iterations);
  const double per_tau2 =
      t * step_epsilon * step_epsilon / (4.0 * std::log(1.25 / delta));
  const double log_inv_delta = -std::log(delta);
  // f(tau) = per_tau2 (tau + 1) + log_inv_delta / tau is convex in tau, so
  // scan integers up to just past the continuous minimiser.
  const double tau_star = std::sqrt(log_inv_delta / per_tau2);
  const auto tau_max = static_cast<int64_t>(std::ceil(tau_star)) + 1;
  MomentsAccountantResult best{INFINITY, 1};
  for (int64_t tau = 1; tau <= tau_max; ++tau) {
    const double td = static_cast<double>(tau);
    const double eps = per_tau2 * td * (td + 1.0) / td + log_inv_delta / td;
    if (eps < best.epsilon) best = {eps, tau};
  }
  return best;
}

host::ErrorOr<double> Paper000AdvancedComposition(double step_epsilon,
                                                  uint64_t iterations,
                                                  double delta_prime) {
  EDGEADMM_HOST_TRY(CheckEpsilonDeltaIterations(
      "epsilon", step_epsilon, "delta'", delta_prime, iterations));
  const double t = static_cast<double>(iterations);
  return std::sqrt(2.0 * t * std::log(1.0 / delta_prime)) * step_epsilon +
         t * step_epsilon * std::expm1(step_epsilon);
}

host::ErrorOr<AdvancedCompositionPlan> Paper000PlanStepEpsilon(
    double total_epsilon, double total_delta, uint64_t iterations) {
  EDGEADMM_HOST_TRY(CheckEpsilonDeltaIterations(
      "total epsilon", total_epsilon, "total delta", total_delta, iterations));
  AdvancedCompositionPlan plan;
  plan.delta_prime = total_delta / 2.0;
  plan.step_delta = total_delta / (2.0 * static_cast<double>(iterations));
  // eps' is increasing in eps: bisect on (0, total].
  double lo = 0.0, hi = total_epsilon;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    EDGEADMM_HOST_TRY_ASSIGN(
        double total,
        Paper000AdvancedComposition(mid, iterations, plan.delta_prime));
    (total > total_epsilon ? hi : lo) = mid;
  }
  plan.step_epsilon = lo;
  if (plan.step_epsilon > 1.0) {
    return host::Error::OutOfRange(
        "the per-iteration epsilon " + std::to_string(plan.step_epsilon) +
        " exceeds 1, outside the paper's Gaussian calibration");
  }
  plan.noise_over_c =
      std::sqrt(2.0 * std::log(1.25 / plan.step_delta)) / plan.step_epsilon;
  return plan;
}

host::ErrorOr<double> Paper001PureDpSum(const Paper001Node& node,
                                        const std::vector<double>& eta,
                                        const std::vector<double>& alpha) {
  EDGEADMM_HOST_TRY(internal::CheckPositive("c1", node.c1));
  EDGEADMM_HOST_TRY(internal::CheckPositive("C", node.c));
  EDGEADMM_HOST_TRY(internal::CheckPositive("V", node.v));
  EDGEADMM_HOST_TRY(internal::CheckPositive("B", node.b));
  if (eta.empty() || eta.size() != alpha.size()) {
    return host::Error::InvalidArgument(
        "eta and alpha schedules must be non-empty "
        "and of equal length");
  }
  double beta = 0.0;
  for (size_t t = 0; t < eta.size(); ++t) {
    EDGEADMM_HOST_TRY(internal::CheckPositive("eta(t)", eta[t]));
    EDGEADMM_HOST_TRY(internal::CheckPositive("alpha(t)", alpha[t]));
    beta += node.c * (1.4 * node.c1 + alpha[t]) / (eta[t] * node.v * node.b);
  }
  return beta;
}

host::ErrorOr<double> Paper001PureDpGeometric(const Paper001Node& node,
                                              double eta1, double q1,
                                              double alpha1, double q2,
                                              uint64_t iterations) {
  for (double v : {node.c1, node.c, node.v, node.b, eta1, q1, alpha1, q2}) {
    EDGEADMM_HOST_TRY(internal::CheckPositive("paper 001 parameter", v));
  }
  EDGEADMM_HOST_TRY(CheckIterations(iterations));
  const double t = static_cast<double>(iterations);
  return node.c / (node.v * node.b * eta1) *
         (1.4 * node.c1 * GeometricSum(1.0 / q1, t) +
          alpha1 * GeometricSum(q2 / q1, t));
}

host::ErrorOr<NetworkRdpResult> Paper002NetworkRdp(double alpha,
                                                   uint64_t contributions,
                                                   double lipschitz,
                                                   double gamma, double sigma,
                                                   uint64_t users) {
  EDGEADMM_HOST_TRY(internal::CheckOrder(alpha));
  EDGEADMM_HOST_TRY(internal::CheckPositive("L", lipschitz));
  EDGEADMM_HOST_TRY(internal::CheckPositive("gamma", gamma));
  EDGEADMM_HOST_TRY(internal::CheckPositive("sigma", sigma));
  if (users < 2) return host::Error::InvalidArgument("n must be >= 2 users");
  const double n = static_cast<double>(users);
  const double l2g2 = lipschitz * lipschitz * gamma * gamma;
  NetworkRdpResult result;
  result.rdp = 8.0 * alpha * static_cast<double>(contributions) * l2g2 *
               std::log(n) / (sigma * sigma * n);
  const double root = lipschitz * gamma * std::sqrt(alpha * (alpha - 1.0));
  result.printed_condition_holds = sigma > 2.0 * root;
  result.corrected_condition_holds = sigma >= 2.0 * std::sqrt(2.0) * root;
  return result;
}

}  // namespace edgeadmm::privacy
