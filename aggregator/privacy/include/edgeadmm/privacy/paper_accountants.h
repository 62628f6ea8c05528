// The papers' own accountants, reproduced for comparison. These are the
// PAPERS' BOUNDS under the papers' assumptions and neighbouring relations,
// not what the deployed system reports (docs/privacy.md, section 3).
#pragma once

#include <cstdint>
#include <vector>

#include "edgeadmm/host/error.h"

namespace edgeadmm::privacy {

struct MomentsAccountantResult {
  double epsilon = 0.0;  // eps-bar
  int64_t tau = 0;       // the minimising integer moment order (alpha - 1)
};

// Paper 004 (Huang et al., DP-ADMM), Thm. 2 / App. A: T iterations, each the
// Gaussian calibrated to (eps, delta) classically, z = sqrt(2 ln(1.25/delta))
// / eps; log moment alpha(tau) = T tau (tau + 1) eps^2 / (4 ln(1.25/delta));
//   eps-bar = min_{tau in Z+} [alpha(tau) + ln(1/delta)] / tau.
// Gives 0.5009 (tau 28) for eps = 0.05, delta = 1e-3, T = 100.
// INVALID_ARGUMENT when eps is not finite and > 0, delta not in (0, 1), T = 0.
host::ErrorOr<MomentsAccountantResult> Paper004MomentsAccountant(
    double step_epsilon, double delta, uint64_t iterations);

// Papers 000/003 (Hu et al.), Cor. 1, advanced composition (Dwork-Roth):
// T iterations of (eps, delta)-DP are (eps', T delta + delta')-DP with
//   eps' = sqrt(2 T ln(1/delta')) eps + T eps (e^eps - 1).
// INVALID_ARGUMENT for eps not finite and > 0, delta' not in (0, 1), T = 0.
host::ErrorOr<double> Paper000AdvancedComposition(double step_epsilon,
                                                  uint64_t iterations,
                                                  double delta_prime);

struct AdvancedCompositionPlan {
  double step_epsilon = 0.0;  // per-iteration eps (solves eps' = total)
  double step_delta = 0.0;    // delta_total / (2 T)
  double delta_prime = 0.0;   // delta_total / 2
  double noise_over_c = 0.0;  // sigma / C = sqrt(2 ln(1.25/delta)) / eps
};

// The digest's recipe for papers 000/003: delta' = delta_total / 2,
// delta = delta_total / (2T), eps by bisection so that eps' = eps_total.
// INVALID_ARGUMENT on bad input; OUT_OF_RANGE when the required per-step
// eps exceeds 1 (the paper's Gaussian calibration needs eps <= 1).
host::ErrorOr<AdvancedCompositionPlan> Paper000PlanStepEpsilon(
    double total_epsilon, double total_delta, uint64_t iterations);

// Paper 001 (Zhang, Khalili, Liu), Thm. 4.1: pure-DP linear sum for one node,
//   beta = sum_t C (1.4 c1 + alpha(t)) / (eta(t) V B).
struct Paper001Node {
  double c1 = 0.25;  // bound on the loss' second derivative
  double c = 1.0;    // the constant C of Thm. 4.1
  double v = 1.0;    // V_i (number of neighbours)
  double b = 1.0;    // B_i (local sample count)
};
// Sum over explicit schedules eta(t), alpha(t) (same length, all > 0).
// INVALID_ARGUMENT on empty/mismatched schedules or non-positive values.
host::ErrorOr<double> Paper001PureDpSum(const Paper001Node& node,
                                        const std::vector<double>& eta,
                                        const std::vector<double>& alpha);
// Closed form for eta(t) = eta1 q1^(t-1), alpha(t) = alpha1 q2^(t-1).
// INVALID_ARGUMENT on non-positive parameters or T = 0.
host::ErrorOr<double> Paper001PureDpGeometric(const Paper001Node& node,
                                              double eta1, double q1,
                                              double alpha1, double q2,
                                              uint64_t iterations);

struct NetworkRdpResult {
  double rdp = 0.0;  // 8 alpha K L^2 gamma^2 ln(n) / (sigma^2 n)
  bool printed_condition_holds = false;    // sigma > 2 L gamma sqrt(a(a-1))
  bool corrected_condition_holds = false;  // sigma >= 2 sqrt2 L gamma sqrt(..)
};

// Paper 002 (Cyffers, Bellet, Basu), Thm. 4: network RDP of the random-walk
// decentralized ADMM, for a user with K contributions on n users. Asymptotic
// (K_i = O(K/n)); the digest's audit finds the weak-convexity condition needs
// sigma >= 2 sqrt(2) L gamma sqrt(alpha (alpha - 1)), off by sqrt(2) from the
// printed one; both are reported. INVALID_ARGUMENT for alpha <= 1, n < 2 or
// non-positive L, gamma, sigma.
host::ErrorOr<NetworkRdpResult> Paper002NetworkRdp(double alpha,
                                                   uint64_t contributions,
                                                   double lipschitz,
                                                   double gamma, double sigma,
                                                   uint64_t users);

}  // namespace edgeadmm::privacy
