// A solve of the perturbed primal with a proven distance to its exact
// minimiser, for pp-admm's approximate-minima release when the prox
// solver's residual does not certify γ (docs/privacy.md, "pp-admm").
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
// taken as at least 1, so for data in the domain (‖a‖ ≤ 1, |b| ≤ 1) the
// budget and the floor depend only on λ, ‖v‖, d, m and the precision.
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

struct PpGradientSolveReport {
  uint32_t steps = 0;  // K
  double floor = 0;    // the rounding part of the bound (L·e + rounding)
  double bound = 0;    // q^K·λG + floor ≥ ‖x − x*‖
};

// Writes into `x` (d = data.dim()) a point within `radius` of
// x* = argmin λ·f̄(x) + ½‖x − v‖², using `work_x` and `work_grad` (d doubles
// each) as scratch. ABORTED if the floor alone reaches `radius`, if the loss
// has no finite Lipschitz bound, or if K > kPpGradientMaxSteps (all
// functions of λ, ‖v‖, d, m, the loss and the precision); INVALID_ARGUMENT
// for sizes that do not match or non-positive λ or radius.
Result<PpGradientSolveReport> PpGradientSolve(
    const DatasetView& data, const Loss& loss, Span<const Real> v,
    double lambda, double radius, Span<double> work_x, Span<double> work_grad,
    Span<Real> x);

}  // namespace edgeadmm
