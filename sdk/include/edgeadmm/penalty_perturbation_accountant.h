// Paper 001's privacy accountant (Zhang, Khalili, Liu, ICML 2018, Thm. 4.1,
// eq. (26)) for penalty-perturbation M-ADMM (PenaltyPerturbationStep), kept
// on the device. Pure DP (no δ), unit = one sample (feature vector and
// label) of one node; linear composition over iterations:
//     P_i(t) = Σ_{r=1}^{t} C (1.4 c₁ + α_i(r)) / (η_i(r) V_i B_i)
// with C the loss weight, c₁ the loss curvature bound (¼ for logistic), V_i
// the degree, B_i the sample count, η_i(r) the private penalty and α_i(r)
// the noise's inverse scale (density ∝ exp(−α||ε||₂)). The network loss is
// max_i P_i(T) (PpNetworkLoss). The 1.4c₁ term is the Jacobian ratio and
// needs the θ condition 2c₁ < (B_i/C)(ρ/N + 2θV_i) (CheckPpThetaCondition)
// and η_i(r) ≥ θ; the whole bound needs each f_i(r) to be the exact
// minimiser of the perturbed primal (KKT bijection).
//
// As run, the step releases an approximate minimiser with exact grid
// Gaussian noise (approximate-minima perturbation, pp_output_perturbation.h),
// and the accountant's ChargeRelease adds that release's zCDP and the Gamma
// sampler's total variation; Privacy(δ) is then the node's (ε, δ), an
// upper bound for what runs (docs/privacy.md, "pp-admm"). loss() alone is
// paper 001's term for the exact minimiser.
//
// P_i is a function of the private η_i schedule: report it only at the end
// of a job, never per round (digest 001, B6). DVP (dual variable
// perturbation, η_i ≡ θ) is the same accountant with constant η.
// Scalars only; no heap.
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/penalty_perturbation_step.h"
#include "edgeadmm/pp_output_perturbation.h"
#include "edgeadmm/real.h"
#include "edgeadmm/result.h"
#include "edgeadmm/span.h"
#include "edgeadmm/status.h"

namespace edgeadmm {

// The constant in −ln(1 − x) < 1.4x on [0, ½] (paper 001, eq. (66)).
inline constexpr double kPpJacobianConstant = 1.4;

// Per-node constants of the bound, fixed for a job.
struct PpNodeConstants {
  double loss_weight = 1.0;       // C > 0
  double curvature_bound = 0.25;  // c₁ > 0 (|ℒ''| ≤ c₁)
  uint32_t degree = 1;            // V_i ≥ 1
  uint64_t samples = 1;           // B_i ≥ 1

  // INVALID_ARGUMENT unless C and c₁ are positive and finite, V_i ≥ 1,
  // B_i ≥ 1 and C ≤ B_i.
  Status Validate() const;
};

// The θ condition of Alg. 1, 2c₁ < (B_i/C)(ρ/N + 2θV_i), needed for the
// Jacobian term of the bound (not for convergence). OK if it holds;
// FAILED_PRECONDITION if it fails; INVALID_ARGUMENT for a non-positive or
// non-finite c₁, C, ρ or θ, or zero B_i, N or V_i.
Status CheckPpThetaCondition(double curvature_bound, double loss_weight,
                             uint64_t samples, double reg_weight,
                             uint32_t nodes, double theta, uint32_t degree);

// One iteration's cost C(1.4c₁ + α)/(η V_i B_i). INVALID_ARGUMENT for
// invalid constants or a non-positive or non-finite η or α (α = 0 is no
// noise: no finite bound).
Result<double> PpIterationCost(const PpNodeConstants& node, double eta,
                               double alpha);

// Closed form for geometric schedules η(t) = η₁q₁^{t−1}, α(t) = α₁q₂^{t−1}
// (no cap on η), t = 1..T:
//   P(T) = C/(V B η₁)·[1.4c₁·G(1/q₁, T) + α₁·G(q₂/q₁, T)],
//   G(r, T) = Σ_{k<T} r^k = (1 − r^T)/(1 − r), T if r = 1.
// INVALID_ARGUMENT for invalid constants or non-positive or non-finite η₁,
// q₁, α₁, q₂. 0 for T = 0.
Result<double> PpGeometricLoss(const PpNodeConstants& node, double eta1,
                               double q1, double alpha1, double q2,
                               uint32_t iterations);

// max_i P_i over the nodes' final losses. INVALID_ARGUMENT if empty or any
// loss is negative or NaN (+inf is allowed and is the max).
Result<double> PpNetworkLoss(Span<const double> node_losses);

class PenaltyPerturbationAccountant {
 public:
  // INVALID_ARGUMENT as PpNodeConstants::Validate; resets the sum.
  Status Init(const PpNodeConstants& node);
  // The constants of a step configuration: C = params.loss_weight,
  // V_i = params.degree, with the loss's c₁ and B_i. INVALID_ARGUMENT or
  // FAILED_PRECONDITION as params.Validate(curvature_bound, samples).
  Status Init(const PenaltyPerturbationParams& params, double curvature_bound,
              uint64_t samples);

  // Adds one iteration at penalty η and noise α. FAILED_PRECONDITION before
  // Init; INVALID_ARGUMENT as PpIterationCost or if the sum would overflow;
  // OUT_OF_RANGE if the iteration counter is saturated. Unchanged on error.
  Status Charge(double eta, double alpha);
  // Adds iteration t ≥ 1 of a step schedule: η = params.Eta(t),
  // α = params.Alpha(t). FAILED_PRECONDITION if params.add_noise is false
  // (a noiseless step has no finite bound) or before Init; INVALID_ARGUMENT
  // for t = 0, else as Charge(eta, alpha).
  Status Charge(const PenaltyPerturbationParams& params, uint32_t t);

  // Iteration t of a run as it is released: Charge(params, t) plus one
  // approximate-minima release of a dim-vector (PpOutputZcdp with
  // γ = params.output_radius, σ = params.OutputNoiseStd()) and one Gamma
  // draw's total variation (PpSamplerTotalVariation). Errors as
  // Charge(params, t) and those functions; unchanged on error.
  Status ChargeRelease(const PenaltyPerturbationParams& params, uint32_t t,
                       size_t dim);
  // (ε, δ') of the iterations charged so far (PpApproxDp of loss(), the
  // zCDP sum and the total variation sum at δ). FAILED_PRECONDITION before
  // Init; INVALID_ARGUMENT as PpApproxDp.
  Result<PpPrivacy> Privacy(double delta) const;

  // Whether one more Charge(eta, alpha) would take P_i strictly above
  // `budget` (a device-side cap β_max). INVALID_ARGUMENT as Charge or for a
  // negative or NaN budget.
  Result<bool> WouldExceed(double eta, double alpha, double budget) const;

  // P_i(t): the pure-DP loss so far (0 before any charge).
  double loss() const { return loss_; }
  uint32_t iterations() const { return iterations_; }

  // Replaces the sum by a persisted one. INVALID_ARGUMENT (unchanged) unless
  // loss is finite and non-negative, and 0 iff iterations is 0;
  // FAILED_PRECONDITION before Init.
  Status Restore(uint32_t iterations, double loss);

 private:
  bool initialized_ = false;
  PpNodeConstants node_;
  uint32_t iterations_ = 0;
  double loss_ = 0;
  double rho_ = 0;  // Σ zCDP of the releases
  double tv_ = 0;   // Σ the sampler's total variation
};

}  // namespace edgeadmm
