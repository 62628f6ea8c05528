// DatasetView: a caller-owned local dataset (features and labels), mapped and
// never copied (edgeadmm/dataset_maps.h maps it for Eigen); the caller keeps
// the memory alive (and unchanged) for as long as any solver uses the view.
#pragma once

#include <cstddef>

#include "edgeadmm/assert.h"
#include "edgeadmm/real.h"
#include "edgeadmm/result.h"
#include "edgeadmm/span.h"

namespace edgeadmm {

class DatasetView {
 public:
  DatasetView() = default;

  // Maps `features` (row-major, samples x dim: row j is record a_j) and
  // `labels` (b_j, one per record). Validates once: INVALID_ARGUMENT for zero
  // samples or dim, span sizes that do not match samples*dim / samples, more
  // than EDGEADMM_CFG_MAX_LOCAL_SAMPLES records or EDGEADMM_CFG_MAX_FEATURES
  // features, or any NaN/Inf value. Computes MaxRowNorm() on the way.
  static Result<DatasetView> Create(Span<const Real> features,
                                    Span<const Real> labels, size_t samples,
                                    size_t dim);

  size_t samples() const { return samples_; }
  size_t dim() const { return dim_; }
  // The samples x dim features A, row-major (row j is record a_j).
  Span<const Real> features() const {
    return Span<const Real>(features_, samples_ * dim_);
  }
  // The labels b, one per record.
  Span<const Real> labels() const {
    return Span<const Real>(labels_, samples_);
  }
  // Record a_j (dim entries) and its label b_j, j < samples (asserted).
  Span<const Real> Row(size_t j) const {
    EDGEADMM_ASSERT(j < samples_);
    return Span<const Real>(features_ + j * dim_, dim_);
  }
  Real Label(size_t j) const {
    EDGEADMM_ASSERT(j < samples_);
    return labels_[j];
  }
  // max_j ||a_j||_2, computed once in Create (0 for a default view).
  Real MaxRowNorm() const { return max_row_norm_; }
  // max_j |b_j|, computed once in Create (0 for a default view).
  Real MaxAbsLabel() const { return max_abs_label_; }

 private:
  const Real* features_ = nullptr;
  const Real* labels_ = nullptr;
  size_t samples_ = 0;
  size_t dim_ = 0;
  Real max_row_norm_ = 0;
  Real max_abs_label_ = 0;
};

}  // namespace edgeadmm
