#include "edgeadmm/dataio/dense_dataset.h"

namespace edgeadmm {

Result<DatasetView> DenseDataset::Shard(size_t first, size_t count) const {
  if (first > samples || count > samples - first) return Status::OutOfRange();
  return DatasetView::Create(
      Span<const Real>(features.data() + first * dim, count * dim),
      Span<const Real>(labels.data() + first, count), count, dim);
}

}  // namespace edgeadmm
