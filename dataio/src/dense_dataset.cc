#include "edgeadmm/dataio/dense_dataset.h"

namespace edgeadmm {

Result<DatasetView> DenseDataset::Shard(size_t first, size_t count) const {
  if (first > samples || count > samples - first) return Status::OutOfRange();
  return DatasetView::Create(
      Span<const Real>(features.data() + first * dim, count * dim),
      Span<const Real>(labels.data() + first, count), count, dim);
}

Result<DenseDataset> ColumnBlock(const DenseDataset& data, size_t first_column,
                                 size_t columns, size_t records) {
  if (columns == 0 || records == 0) return Status::InvalidArgument();
  if (first_column > data.dim || columns > data.dim - first_column ||
      records > data.samples) {
    return Status::OutOfRange();
  }
  DenseDataset block;
  block.samples = records;
  block.dim = columns;
  block.features.reserve(records * columns);
  for (size_t i = 0; i < records; ++i) {
    const Real* row = data.features.data() + i * data.dim + first_column;
    block.features.insert(block.features.end(), row, row + columns);
  }
  block.labels.assign(data.labels.begin(), data.labels.begin() + records);
  return block;
}

}  // namespace edgeadmm
