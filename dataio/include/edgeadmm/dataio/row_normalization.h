// Row scaling of a loaded data set, e.g. to ||a_j||₂ ≤ 1 as paper 004's
// bounds (||∇ℓ|| ≤ 1, ||∇²ℓ|| ≤ 1/4) require. Host only.
#pragma once

#include "edgeadmm/dataio/dense_dataset.h"

namespace edgeadmm {

enum class RowNormalization {
  kNone = 0,
  // Each non-zero row divided by its own norm: ||a_j|| = 1 (zero rows stay).
  kUnitNorm = 1,
  // All rows divided by the largest row norm: max_j ||a_j|| = 1, the
  // geometry between records is kept.
  kMaxNorm = 2,
};

// Scales the rows of `data` in place as `mode` says.
void NormalizeRows(DenseDataset& data, RowNormalization mode);

}  // namespace edgeadmm
