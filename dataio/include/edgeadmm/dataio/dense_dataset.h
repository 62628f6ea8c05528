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

// Vertical partition (admm-sharing, papers 000/003): columns [first_column,
// first_column + columns) of records [0, records) of `data`, with their
// labels (a party ignores them: the gateway holds the labels), as a data
// set of its own. OUT_OF_RANGE if the block or the records leave `data`;
// INVALID_ARGUMENT for zero columns or records.
Result<DenseDataset> ColumnBlock(const DenseDataset& data, size_t first_column,
                                 size_t columns, size_t records);

}  // namespace edgeadmm
