#include "edgeadmm/dataset_view.h"

#include <cmath>

#include "edgeadmm/config.h"
#include "vector_ops.h"

namespace edgeadmm {

Result<DatasetView> DatasetView::Create(Span<const Real> features,
                                        Span<const Real> labels, size_t samples,
                                        size_t dim) {
  if (samples == 0 || dim == 0 ||
      samples > size_t{EDGEADMM_CFG_MAX_LOCAL_SAMPLES} ||
      dim > size_t{EDGEADMM_CFG_MAX_FEATURES} || labels.size() != samples ||
      features.size() % dim != 0 || features.size() / dim != samples) {
    return Status::InvalidArgument();
  }
  DatasetView view;
  view.features_ = features.data();
  view.labels_ = labels.data();
  view.samples_ = samples;
  view.dim_ = dim;
  for (const Real b : labels) {
    if (!std::isfinite(b)) return Status::InvalidArgument();
    view.max_abs_label_ = std::fmax(view.max_abs_label_, std::fabs(b));
  }
  for (const Real a : features) {
    if (!std::isfinite(a)) return Status::InvalidArgument();
  }
  for (size_t j = 0; j < samples; ++j) {
    view.max_row_norm_ =
        std::fmax(view.max_row_norm_, internal::Norm(view.Row(j)));
  }
  return view;
}

}  // namespace edgeadmm
