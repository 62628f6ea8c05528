#include "edgeadmm/linear_model.h"

#include "vector_ops.h"

namespace edgeadmm {
namespace {

void ComputeMargins(const DatasetView& data, Span<const Real> w,
                    Span<Real> margins) {
  EDGEADMM_ASSERT(w.size() == data.dim());
  EDGEADMM_ASSERT(margins.size() == data.samples());
  internal::MultiplyRows(data, w, margins);
}

}  // namespace

Real LocalObjective(const DatasetView& data, const Loss& loss,
                    Span<const Real> w, Span<Real> margins) {
  ComputeMargins(data, w, margins);
  const Span<const Real> b = data.labels();
  Real sum = 0;
  for (size_t j = 0; j < margins.size(); ++j) {
    sum += loss.Value(margins[j], b[j]);
  }
  return sum / static_cast<Real>(data.samples());
}

Real LocalLossAndDerivatives(const DatasetView& data, const Loss& loss,
                             Span<const Real> w, Span<Real> margins,
                             Span<Real> derivatives) {
  EDGEADMM_ASSERT(derivatives.size() == data.samples());
  ComputeMargins(data, w, margins);
  const Span<const Real> b = data.labels();
  Real sum = 0;
  for (size_t j = 0; j < margins.size(); ++j) {
    const Real t = margins[j];
    const Real label = b[j];
    Real derivative = 0;
    sum += loss.ValueAndDerivative(t, label, &derivative);
    derivatives[j] = derivative;
  }
  return sum / static_cast<Real>(data.samples());
}

void LocalGradient(const DatasetView& data, const Loss& loss,
                   Span<const Real> w, Span<Real> margins, Span<Real> grad) {
  EDGEADMM_ASSERT(grad.size() == data.dim());
  ComputeMargins(data, w, margins);
  const Span<const Real> b = data.labels();
  for (size_t j = 0; j < margins.size(); ++j) {
    margins[j] = loss.Derivative(margins[j], b[j]);
  }
  internal::MultiplyTransposed(data, margins, grad);
  internal::Scale(1 / static_cast<Real>(data.samples()), grad);
}

}  // namespace edgeadmm
