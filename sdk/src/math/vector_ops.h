// Private to the SDK: the few dense vector kernels the device-side solvers
// need, as plain loops over Spans. One small out-of-line copy of each, in
// place of Eigen's blocked GEMV kernels (several KiB of flash each on a
// Cortex-M4F). Dot keeps four partial sums (vector_ops.cc); the order is
// fixed by the code, so every target adds in the same order.
#pragma once

#include <cstddef>

#include "edgeadmm/dataset_view.h"
#include "edgeadmm/real.h"
#include "edgeadmm/span.h"

namespace edgeadmm {
namespace internal {

// Σ_i a_i·b_i (sizes must match: asserted).
Real Dot(Span<const Real> a, Span<const Real> b);
// y += alpha·x (sizes must match: asserted).
void Axpy(Real alpha, Span<const Real> x, Span<Real> y);
// x *= alpha.
void Scale(Real alpha, Span<Real> x);
// ||x||₂ = sqrt(Σ x_i²).
Real Norm(Span<const Real> x);
// ||x||₂ without overflow or underflow: max|x_i|·||x / max|x_i|||₂.
Real StableNorm(Span<const Real> x);

// The products with the local data matrix A (rows a_j), row by row through
// Dot and Axpy: Eigen's GEMV keeps a heap fallback for its temporaries
// (a reference to free() even when never taken), which the SDK may not link.
// y = A·x: y_j = a_jᵀx (y: data.samples(), x: data.dim(); asserted).
void MultiplyRows(const DatasetView& data, Span<const Real> x, Span<Real> y);
// y = Aᵀ·t = Σ_j t_j·a_j (y: data.dim(), t: data.samples(); asserted).
void MultiplyTransposed(const DatasetView& data, Span<const Real> t,
                        Span<Real> y);

}  // namespace internal
}  // namespace edgeadmm
