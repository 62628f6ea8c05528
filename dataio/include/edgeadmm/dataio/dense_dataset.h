// DenseDataset: a loaded data set held in host memory (row-major features,
// labels), from which DatasetViews of the whole set or of shards are mapped.
// Host only (std::vector).
#pragma once

#include <cstddef>
#include <vector>

#include "edgeadmm/dataset_view.h"
#include "edgeadmm/real.h"
#include "edgeadmm/result.h"

namespace edgeadmm {

struct DenseDataset {
  std::vector<Real> features;  // samples x dim, row-major
  std::vector<Real> labels;    // samples
  size_t samples = 0;
  size_t dim = 0;

  // A view of all records (DatasetView::Create's errors apply, e.g. more
  // records than EDGEADMM_CFG_MAX_LOCAL_SAMPLES).
  Result<DatasetView> View() const { return Shard(0, samples); }
  // A view of records [first, first + count) without copying.
  // OUT_OF_RANGE if the range leaves the data set; otherwise as View().
  Result<DatasetView> Shard(size_t first, size_t count) const;
};

}  // namespace edgeadmm
