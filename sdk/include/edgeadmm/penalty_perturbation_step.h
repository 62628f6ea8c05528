// Penalty-perturbation (PP) private M-ADMM step of paper 001 (Zhang,
// Khalili, Liu, ICML 2018), node i of a peer graph relayed by the aggregator.
//
// Local objective O(f, D_i) = (C/B_i) Σ_n ℒ(y_n fᵀx_n) + (ρ/N)·½||f||².
// Alg. 1, eq. (24)/(25), with the neighbour sum S_i(t) = Σ_{j∈V_i} f_j(t):
//   ε ~ density ∝ exp(−α_i(t+1)·||ε||₂)
//   f_i(t+1) = argmin_f O(f) + 2(λ_i(t) + η V_i ε)ᵀf
//                       + η (V_i ||f||² − fᵀ(V_i f_i(t) + S_i(t)))
//   (11) λ_i(t+1) = λ_i(t) + (θ/2)(V_i f_i(t+1) − S_i(t+1))
// with the private, non-decreasing penalty η = η_i(t+1). Completing the
// square, f_i(t+1) = prox_{s·C·f̄}(v) with f̄ the mean loss over the B_i
// records, 1/s = ρ/N + 2ηV_i and v = s·(η(V_i f_i(t) + S_i(t)) − 2λ_i −
// 2ηV_iε). Schedules (§7): η_i(t) = min(η₁·q₁^{t−1}, η_max), α_i(t) =
// α₁·q₂^{t−1}. Paper 001's bound needs the exact minimiser; the step
// releases an approximate one with output noise instead (Iyengar et al.
// 2019, pp_output_perturbation.h), within γ of the ideal minimiser
// (pp_draw_box.h, pp_rounding_margin.h, pp_gradient_solve.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

#include "edgeadmm/dataset_view.h"
#include "edgeadmm/discrete_gaussian_sampler.h"
#include "edgeadmm/gaussian_sampler.h"
#include "edgeadmm/loss.h"
#include "edgeadmm/norm_gamma_sampler.h"
#include "edgeadmm/penalty_schedule.h"
#include "edgeadmm/pp_draw_box.h"
#include "edgeadmm/prox_solver.h"
#include "edgeadmm/real.h"
#include "edgeadmm/result.h"
#include "edgeadmm/span.h"
#include "edgeadmm/workspace.h"

namespace edgeadmm {

// PP: the private geometric schedule η_i(t) = min(η₁q₁^{t−1}, η_max).
// DVP (dual variable perturbation, Zhang & Zhu 2017), the paper's baseline:
// the same step and accountant with η_i(t) ≡ θ.
enum class PenaltyMode : uint8_t {
  kPenaltyPerturbation = 0,
  kDualVariablePerturbation = 1,
};

struct PenaltyPerturbationParams {
  double loss_weight = 1.0;  // C ∈ (0, B_i]
  double reg_weight = 1.0;  // ρ > 0 (weight of ½||f||² in the ERM objective)
  uint32_t nodes = 1;       // N
  uint32_t degree = 1;      // V_i ≥ 1
  double theta = 0.5;       // dual step θ > 0
  double eta1 = 0.5;        // η_i(1) ≥ θ
  double eta_growth = 1.0;  // q₁ ≥ 1 (non-decreasing penalty)
  double eta_max = 1e6;     // cap on η (geometric growth is unbounded)
  double alpha1 = 3.0;      // α_i(1) > 0
  double alpha_growth = 1.0;  // q₂ > 0
  bool add_noise = true;      // false: the non-private M-ADMM step
  PenaltyMode mode = PenaltyMode::kPenaltyPerturbation;
  // With noise: γ > 0 and z > 0 of the approximate-minima release
  // (PenaltySchedule); the output noise std is OutputNoiseStd() = 2γz.
  double output_radius = kPpDefaultOutputRadius;
  double output_noise_multiplier = kPpDefaultOutputNoiseMultiplier;

  // INVALID_ARGUMENT for out-of-range values; FAILED_PRECONDITION if the
  // privacy condition 2c₁ < (B_i/C)(ρ/N + 2θV_i) fails for this device
  // (c₁ = the loss's curvature bound, B_i = `samples`).
  Status Validate(double curvature_bound, size_t samples) const;
  double Eta(uint32_t t) const;    // η_i(t), t ≥ 1 (θ in DVP mode)
  double Alpha(uint32_t t) const;  // α_i(t), t ≥ 1
  double OutputNoiseStd() const {
    return 2 * output_radius * output_noise_multiplier;
  }
};

struct PenaltyPerturbationReport {
  ProxReport prox;
  double eta = 0;         // η_i(t+1) used
  double alpha = 0;       // α_i(t+1) used (0 without noise)
  double noise_norm = 0;  // ||ε||
  // With noise: C·s·kkt_residual, the solver's own estimate of ‖x − x*‖
  // in Real (s = 1/Λ, Λ = ρ/N + 2ηV_i; informational), and the release's
  // std.
  double residual_radius = 0;
  double output_noise_std = 0;
  // With noise: the part of γ reserved for rounding (pp_rounding_margin.h),
  // at the corner of the draw's box (pp_draw_box.h), so the same for every
  // admitted draw: the Gamma draw's distance to the ideal draw times
  // 2ηV_i·s (≤ 1), plus the centre's and the prox scale's rounding. The
  // solve is released if certified_distance + rounding_margin ≤ γ.
  double rounding_margin = 0;
  // With noise: the proven bound on the prox solve's ‖x − x*‖
  // (PpCertifiedDistance: ‖∇φ(x)‖ in double plus its error bound); +inf
  // when the solver failed.
  double certified_distance = 0;
  // With noise: the bound on ‖x − x*‖ the release relies on, and the
  // gradient steps taken when the residual did not certify γ
  // (pp_gradient_solve.h; 0 when the prox solve was released).
  double solve_bound = 0;
  uint32_t gradient_steps = 0;
  // With noise: the floor of the planned gradient descent (its rounding
  // part), planned before the solve; γ − rounding_margin must exceed it.
  double gradient_floor = 0;
};

class PenaltyPerturbationStep {
 public:
  // Workspace bytes: the Newton-CG prox solver plus v, the noise and f (warm
  // start) vectors, and two double vectors for the gradient solve.
  static constexpr size_t WorkspaceBytes(LossKind loss, size_t samples,
                                         size_t dim) {
    return ProxSolver::WorkspaceBytes(loss, ProxMethod::kAuto, samples, dim) +
           3 * Workspace::Bytes<Real>(dim) + 2 * Workspace::Bytes<double>(dim);
  }

  Status Init(Workspace& ws, const DatasetView& data, const Loss& loss);
  // As Init for a loss fixed at compile time: links only the prox method
  // that loss uses (ProxSolver::InitFor).
  template <LossKind kLoss>
  Status InitFor(Workspace& ws, const DatasetView& data, const Loss& loss) {
    initialized_ = false;
    EDGEADMM_TRY(solver_.InitFor<kLoss>(ws, data, loss));
    return FinishInit(ws, data, loss);
  }

  // One PP primal step for iteration t → t+1 (t ≥ 0). `f` holds f_i(t) on
  // entry and f_i(t+1) on return; `neighbour_sum` is S_i(t); `dual` is λ_i(t).
  // With noise, f_i(t+1) is the approximate-minima release: ε is drawn
  // until the certified box admits it (pp_draw_box.h); the prox solve x is
  // kept if its certified distance to the exact minimiser
  // (PpCertifiedDistance, pp_gradient_solve.h) + rounding_margin ≤ γ, else
  // (or if the solver fails) replaced by the planned gradient descent to
  // within γ − rounding_margin.
  // ABORTED with f unchanged, before any record is read, only if the margin
  // at the box corner or the plan's floor reaches γ, or the box misses
  // kBoxAttempts draws. Then f_i(t+1) is the exact grid Gaussian of x with
  // std 2γz (pp_output_perturbation.h).
  // INVALID_ARGUMENT / FAILED_PRECONDITION as Validate; UNAVAILABLE if the
  // DRBG fails (f unchanged).
  Result<PenaltyPerturbationReport> Run(const PenaltyPerturbationParams& params,
                                        uint32_t t,
                                        Span<const Real> neighbour_sum,
                                        Span<const Real> dual, Span<Real> f,
                                        GaussianSampler& noise,
                                        DiscreteGaussianSampler& exact_noise);

  // (11): λ ← λ + (θ/2)(V f_i(t+1) − S_i(t+1)).
  static Status DualUpdate(const PenaltyPerturbationParams& params,
                           Span<const Real> f_new,
                           Span<const Real> neighbour_sum_new, Span<Real> dual);

 private:
  // After the solver's Init: carves v, the noise, f and the gradient solve's
  // two double vectors.
  Status FinishInit(Workspace& ws, const DatasetView& data, const Loss& loss);
  // What the box corner bounds (pp_draw_box.h): the rounding margin for
  // every admitted draw, and a bound on ‖v‖ for the gradient plan.
  struct PublicBounds {
    double rounding_margin = 0;
    double centre_norm = 0;
  };
  // A draw beyond this many misses of the box is refused (ABORTED); it
  // needs the first draw outside, an event charged in the accountant.
  static constexpr int kBoxAttempts = 8;

  // PublicBounds from the public inputs (before f is overwritten).
  Result<PublicBounds> BoundsAtTheBoxCorner(
      const PenaltyPerturbationParams& params, double eta, double alpha,
      Span<const Real> neighbour_sum, Span<const Real> dual,
      Span<const Real> f) const;
  // Draws ε into noise_ until the box admits it.
  Status DrawInTheBox(GaussianSampler& noise, double alpha);

  DatasetView data_;
  PpDrawBox box_;
  bool initialized_ = false;
  double curvature_bound_ = 0;
  ProxSolver solver_;
  Span<Real> v_;
  Span<Real> noise_;
  Span<Real> x_;
  Span<double> work_x_;
  Span<double> work_grad_;
  Loss loss_;
};

}  // namespace edgeadmm
