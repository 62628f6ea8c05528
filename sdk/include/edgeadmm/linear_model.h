// Local objective of one device for a linear model (paper 002, f_i in
// eq. (6)): f(w) = (1/m) Σ_j ℓ(a_jᵀw; b_j), with A the device's m x p records.
#pragma once

#include "edgeadmm/dataset_view.h"
#include "edgeadmm/loss.h"
#include "edgeadmm/real.h"
#include "edgeadmm/span.h"

namespace edgeadmm {

// Returns f(w). `margins` (size m) is scratch; on return it holds A·w.
// Sizes must match the data (asserted: a programming error).
Real LocalObjective(const DatasetView& data, const Loss& loss,
                    Span<const Real> w, Span<Real> margins);

// Writes grad = ∇f(w) = Aᵀd/m, d_j = ℓ'(a_jᵀw; b_j), without f(w) (no
// loss values: for the logistic loss one exp per record, no log1p).
// `margins` (size m) is scratch; on return it holds d. Sizes must match the
// data (asserted).
void LocalGradient(const DatasetView& data, const Loss& loss,
                   Span<const Real> w, Span<Real> margins, Span<Real> grad);

// The shared pass of both: margins = A·w, derivatives_j = ℓ'(margins_j; b_j),
// returns f(w). `derivatives` may alias `margins` (then it ends up holding
// the derivatives). Sizes must match the data (asserted).
Real LocalLossAndDerivatives(const DatasetView& data, const Loss& loss,
                             Span<const Real> w, Span<Real> margins,
                             Span<Real> derivatives);

}  // namespace edgeadmm
