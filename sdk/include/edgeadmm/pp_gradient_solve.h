// A solve of the perturbed primal with a proven distance to its exact
// minimiser, for pp-admm's approximate-minima release when the prox
// solver's answer cannot be certified within γ, and that certificate
// (PpCertifiedDistance) (docs/privacy.md, "pp-admm").
//
// φ(x) = λ·f̄(x) + ½‖x − v‖², f̄ = (1/m)Σ_j ℓ(a_jᵀx; b_j), is 1-strongly
// convex and L-smooth with L = 1 + λ·c₁·A² (c₁ = CurvatureBound, A ≥ ‖a_j‖).
// Gradient descent with step 1/L from x₀ = v contracts ‖x_k − x*‖ by
// q = 1 − 1/L per step (Nesterov 2004, Thm. 2.1.15), and ‖v − x*‖ =
// λ‖∇f̄(x*)‖ ≤ λG (G the loss's Lipschitz bound), so K = ⌈ln(λG/ζ)/−ln q⌉
// steps reach ζ in exact arithmetic, whatever the data. Each computed step
// is within e of the exact one (gradient in double from Real records, the
// margin aᵀx rounded to Real for ℓ', ℓ' within 8 u_R), and the errors sum to
// at most e/(1 − q) = L·e; the result is rounded once to Real. A and G are
// taken as at least 1, and ‖v‖ enters only through a bound the caller
// gives, so for data in the domain (‖a‖ ≤ 1, |b| ≤ 1) the plan (budget
// and floor) depends only on λ, that bound, d, m and the precision: the
// step makes it from public inputs before it reads a record.
// The certificate of another solver's answer x uses the same error model:
// φ is 1-strongly convex, so ‖x − x*‖ ≤ ‖∇φ(x)‖, and the gradient computed
// as in a step is within the plan's gradient error of ∇φ(x) for ‖x‖ within
// the plan's reach.
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/dataset_view.h"
#include "edgeadmm/loss.h"
#include "edgeadmm/result.h"
#include "edgeadmm/span.h"

namespace edgeadmm {

// Steps above this are refused (ABORTED) rather than run.
inline constexpr uint32_t kPpGradientMaxSteps = 1u << 20;

struct PpGradientPlan {
  double lambda = 0;        // λ
  double centre_bound = 0;  // the bound on ‖v‖ the plan assumes
  double smoothness = 0;    // L, the step is 1/L
  uint32_t steps = 0;       // K
  double floor = 0;         // the rounding part of the bound (L·e + rounding)
  double bound = 0;         // q^K·λG + floor ≥ ‖x − x*‖
  double reach = 0;         // ‖x‖ bound of the error model
  double gradient_error = 0;  // one computed ∇φ(x) within this of the exact
};

// The plan for a point within `radius` of x* = argmin λ·f̄(x) + ½‖x − v‖²
// for every v with ‖v‖ ≤ `centre_bound`. ABORTED if the floor alone
// reaches `radius`, if the loss has no finite Lipschitz bound, or if
// K > kPpGradientMaxSteps (all functions of λ, the bound, d, m, the loss
// and the precision); INVALID_ARGUMENT for non-positive λ or radius, a
// negative or non-finite bound, or dim 0.
Result<PpGradientPlan> PlanPpGradientSolve(const DatasetView& data,
                                           const Loss& loss, double lambda,
                                           double radius, double centre_bound);

// Runs `plan`: writes into `x` (d = data.dim()) a point within plan.bound
// of x*, using `work_x` and `work_grad` (d doubles each) as scratch.
// INVALID_ARGUMENT for sizes that do not match, a non-finite v, or
// ‖v‖ > plan.centre_bound.
Status RunPpGradientSolve(const PpGradientPlan& plan, const DatasetView& data,
                          const Loss& loss, Span<const Real> v,
                          Span<double> work_x, Span<double> work_grad,
                          Span<Real> x);

// An upper bound on ‖x − x*‖ for a given x (e.g. the prox solver's
// answer): the computed ‖∇φ(x)‖, raised by its rounding and by the plan's
// gradient error. +inf when ‖x‖ exceeds the plan's reach (no such x is
// within the plan's radius of x*) or x is not finite. INVALID_ARGUMENT as
// RunPpGradientSolve.
Result<double> PpCertifiedDistance(const PpGradientPlan& plan,
                                   const DatasetView& data, const Loss& loss,
                                   Span<const Real> v, Span<const Real> x,
                                   Span<double> work_x, Span<double> work_grad);

}  // namespace edgeadmm
