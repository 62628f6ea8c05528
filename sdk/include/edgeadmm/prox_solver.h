// ProxSolver: the local proximal step of private ADMM (paper 002, eq. (6)),
//   x = prox_{s f}(v) = argmin_x f(x) + ||x − v||²/(2s),
// with f(x) = (1/m) Σ_j ℓ(a_jᵀx; b_j) the device's local objective
// (linear_model.h). φ(x) = f(x) + ||x − v||²/(2s) is (1/s)-strongly convex.
//
// Methods:
// - kClosedForm (squared loss only): solves (AᵀA/m + I/s)x = Aᵀb/m + v/s.
//   * m < p: Woodbury form, x = s·(r − Aᵀ(AAᵀ + (m/s)I)⁻¹A r), r the right
//     side; the Cholesky factor is m x m. For m = 1 this is Sherman–Morrison:
//     O(p) work and a 1x1 "matrix" (a scalar).
//   * m ≥ p: the p x p system itself, Cholesky-factored.
//   The factor (n x n, n = min(m, p), lower triangle) is cached and rebuilt
//   only when s changes. Workspace: n² + 2m + 2p reals. The Cholesky is our
//   own unblocked one: Eigen 3.4's in-place LLT<Ref<...>> over a Map hits
//   EIGEN_NO_MALLOC at n = 400 (blocked path; checked). Each solve is followed
//   by up to two steps of iterative refinement while the KKT residual is above
//   the tolerance.
// - kNewtonCg (any loss): globally convergent inexact Newton. Hessian-free
//   products Hu = Aᵀ(D·(Au))/m + u/s with D_j = ℓ''(a_jᵀx; b_j), truncated
//   CG (forcing term min(0.5, sqrt(res/scale)), at most
//   EDGEADMM_CFG_CG_MAX_ITERATIONS), Armijo backtracking on φ (c = 1e-4,
//   halving, with a round-off allowance), warm start from x. Every pass over
//   the records recomputes the margins a_jᵀx (one dot product per record)
//   instead of storing them, so the only m-length array holds D_j during
//   CG and a_jᵀd during the line search. Workspace m + 5p reals.
// Each method is in its own source file and is linked only if its Init is
// referenced: Init (method chosen at run time) references both, InitFor<loss>
// only the one kAuto resolves to, so a logistic-only firmware does not link
// the closed form and its Cholesky.
// Both stop at the KKT residual ||∇f(x) + (x − v)/s||₂ ≤
// EDGEADMM_CFG_NEWTON_TOLERANCE·max(1, ||v||₂/s) (default 1e-10), Newton-CG
// after at most EDGEADMM_CFG_NEWTON_MAX_ITERATIONS (default 50) steps.
// Accuracy in x: φ is (1/s)-strongly convex, so ||x − x*||₂ ≤
// s·kkt_residual. For very large s the bound is loose (e.g. s = 1e12 and a
// residual of 1e-10 allow ||x − x*|| up to 100: a smoothed-hinge prox on
// separable data then stops anywhere with all margins ≥ 1); ADMM steps of
// order 1..100 are unaffected.
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/dataset_view.h"
#include "edgeadmm/loss.h"
#include "edgeadmm/real.h"
#include "edgeadmm/result.h"
#include "edgeadmm/span.h"
#include "edgeadmm/workspace.h"

namespace edgeadmm {

enum class ProxMethod : uint8_t { kAuto = 0, kClosedForm = 1, kNewtonCg = 2 };

struct ProxReport {
  // Newton steps taken (Newton-CG) or linear solves (closed form: 1 plus the
  // refinement steps).
  int iterations;
  // ||∇f(x) + (x − v)/s||₂ at the returned x, recomputed after the last step.
  Real kkt_residual;
  // kkt_residual ≤ EDGEADMM_CFG_NEWTON_TOLERANCE·max(1, ||v||₂/s).
  bool converged;
};

class ProxSolver {
 public:
  // The method kAuto resolves to: closed form for the squared loss,
  // Newton-CG otherwise.
  static constexpr ProxMethod Resolve(LossKind loss, ProxMethod method) {
    if (method != ProxMethod::kAuto) return method;
    return loss == LossKind::kSquared ? ProxMethod::kClosedForm
                                      : ProxMethod::kNewtonCg;
  }

  // Workspace bytes Init needs for this shape (constexpr, so a static buffer
  // can be sized at compile time). 0 for a closed form with a non-squared
  // loss (Init refuses that combination).
  static constexpr size_t WorkspaceBytes(LossKind loss, ProxMethod method,
                                         size_t samples, size_t dim) {
    const size_t m = samples;
    const size_t p = dim;
    switch (Resolve(loss, method)) {
      case ProxMethod::kClosedForm: {
        if (loss != LossKind::kSquared) return 0;
        const size_t n = m < p ? m : p;
        // factor n², Aᵀb/m p, gradient p, margins m, Woodbury temp m.
        return Workspace::Bytes<Real>(n * n) + 2 * Workspace::Bytes<Real>(p) +
               2 * Workspace::Bytes<Real>(m);
      }
      case ProxMethod::kNewtonCg:
        // D_j, then a_jᵀd: m; gradient, direction, CG residual, CG direction,
        // Hessian product: p each.
        return Workspace::Bytes<Real>(m) + 5 * Workspace::Bytes<Real>(p);
      case ProxMethod::kAuto:
        break;
    }
    return 0;
  }

  // Binds the solver to `data` (which must outlive it) and carves its buffers
  // from `ws`. INVALID_ARGUMENT for an empty view, an invalid loss, an unknown
  // method, or kClosedForm with a non-squared loss; RESOURCE_EXHAUSTED if `ws`
  // has less than WorkspaceBytes(...) left. On error the solver is unusable.
  Status Init(Workspace& ws, const DatasetView& data, const Loss& loss,
              ProxMethod method = ProxMethod::kAuto);
  // Init with kAuto resolved at compile time for a loss fixed at compile
  // time: links only that method. INVALID_ARGUMENT also if loss.kind != kLoss.
  template <LossKind kLoss>
  Status InitFor(Workspace& ws, const DatasetView& data, const Loss& loss) {
    if (loss.kind != kLoss) {
      initialized_ = false;
      return Status::InvalidArgument();
    }
    if constexpr (Resolve(kLoss, ProxMethod::kAuto) ==
                  ProxMethod::kClosedForm) {
      return InitClosedForm(ws, data, loss);
    } else {
      return InitNewtonCg(ws, data, loss);
    }
  }
  // Init with one method (as Init with that method); each links only itself.
  Status InitClosedForm(Workspace& ws, const DatasetView& data,
                        const Loss& loss);
  Status InitNewtonCg(Workspace& ws, const DatasetView& data,
                      const Loss& loss);

  // x = prox_{s f}(v). x holds the warm start on entry (ignored by the closed
  // form) and the solution on return. FAILED_PRECONDITION before a successful
  // Init; INVALID_ARGUMENT for s ≤ 0 or non-finite, v or x of the wrong size
  // or holding NaN/Inf (x unchanged then); INTERNAL if a Cholesky factor
  // breaks down (cannot happen for finite data in exact arithmetic). Not
  // converging within the caps is not an error: converged = false.
  Result<ProxReport> Solve(Span<const Real> v, Real s, Span<Real> x);

  // The method in use after Init (never kAuto).
  ProxMethod method() const { return method_; }
  // p reals of the solver's workspace that hold nothing between Solve calls
  // (the KKT residual vector): callers may use them as scratch then.
  Span<Real> scratch() const { return grad_; }
  // True if the closed form factors the m x m Woodbury system (m < p).
  bool UsesWoodbury() const { return data_.samples() < data_.dim(); }

 private:
  using SolveFunction = Result<ProxReport> (ProxSolver::*)(Span<const Real> v,
                                                            Real s,
                                                            Span<Real> x);

  // Checks shared by both methods' Init (not the carving): data, loss,
  // method, free workspace; binds data and loss. Leaves the solver unusable.
  Status BeginInit(const Workspace& ws, const DatasetView& data,
                   const Loss& loss, ProxMethod method);
  Status ValidateSolveArguments(Span<const Real> v, Real s,
                                Span<const Real> x) const;
  // max(1, ||v||₂/s): the KKT residual tolerance is this times
  // EDGEADMM_CFG_NEWTON_TOLERANCE.
  static Real ResidualScale(Span<const Real> v, Real s);

  // Closed form (prox_closed_form.cc).
  Result<ProxReport> SolveClosedForm(Span<const Real> v, Real s, Span<Real> x);
  // grad_ = ∇f(x) + (x − v)/s; returns its norm. Uses margins_.
  Real KktResidual(Span<const Real> v, Real s, Span<const Real> x);
  Status Factor(Real s);
  // r ← (AᵀA/m + I/s)⁻¹ r with the cached factor.
  void ApplyInverse(Span<Real> r);

  // Newton-CG (prox_newton_cg.cc).
  Result<ProxReport> SolveNewtonCg(Span<const Real> v, Real s, Span<Real> x);
  // One pass over the records at x: returns f(x), sets grad_ = ∇φ(x) and
  // per_record_[j] = ℓ''(a_jᵀx; b_j)/m.
  Real NewtonPass(Span<const Real> v, Real s, Span<const Real> x);
  // dir_ ≈ −H⁻¹ grad_ by truncated CG to relative accuracy `forcing`.
  void TruncatedCg(Real s, Real forcing);
  // out = H u = Σ_j D_j (a_jᵀu) a_j + u/s.
  void HessianTimes(Span<const Real> u, Real s, Span<Real> out);
  // Armijo step along dir_ from x; returns the accepted α, or 0 if none.
  // Overwrites per_record_ with a_jᵀdir_.
  Real LineSearch(Span<const Real> v, Real s, Span<const Real> x, Real value);

  DatasetView data_;
  Loss loss_;
  ProxMethod method_ = ProxMethod::kAuto;
  SolveFunction solve_ = nullptr;
  bool initialized_ = false;
  Real factor_step_ = 0;  // s the cached factor belongs to (0: none yet)

  Span<Real> factor_;      // closed form: n x n Cholesky factor
  Span<Real> atb_;         // closed form: Aᵀb/m
  Span<Real> margins_;     // closed form: m
  Span<Real> temp_;        // closed form: m, A·u
  Span<Real> per_record_;  // Newton: m, D_j = ℓ''/m, then a_jᵀd
  Span<Real> grad_;        // p: KKT residual vector ∇φ(x)
  Span<Real> dir_;         // Newton: p
  Span<Real> cg_r_;        // Newton: p
  Span<Real> cg_p_;        // Newton: p
  Span<Real> cg_hp_;       // Newton: p
};

}  // namespace edgeadmm
