#include "edgeadmm/fleet/data_split.h"

namespace edgeadmm::fleet {
namespace {

// Even split of n items over k parts: (first, count) of each part.
template <typename Range>
std::vector<Range> EvenSplit(size_t n, size_t k) {
  std::vector<Range> out(k);
  const size_t base = n / k;
  const size_t extra = n % k;
  size_t first = 0;
  for (size_t i = 0; i < k; ++i) {
    out[i].first = first;
    out[i].count = base + (i < extra ? 1 : 0);
    first += out[i].count;
  }
  return out;
}

}  // namespace

Result<std::vector<RecordRange>> SplitRecords(size_t samples, size_t devices) {
  if (devices == 0 || devices > samples) return Status::InvalidArgument();
  return EvenSplit<RecordRange>(samples, devices);
}

Result<std::vector<RecordRange>> SplitRecordsBySize(
    size_t samples, const std::vector<size_t>& sizes) {
  if (sizes.empty()) return Status::InvalidArgument();
  std::vector<RecordRange> out(sizes.size());
  size_t first = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0 || sizes[i] > samples - first) {
      return Status::InvalidArgument();
    }
    out[i].first = first;
    out[i].count = sizes[i];
    first += sizes[i];
  }
  return out;
}

Result<std::vector<ColumnRange>> SplitColumns(size_t dim, size_t devices) {
  if (devices == 0 || devices > dim) return Status::InvalidArgument();
  return EvenSplit<ColumnRange>(dim, devices);
}

Result<DenseDataset> ColumnBlock(const DenseDataset& data, ColumnRange range) {
  if (range.count == 0 || range.first > data.dim ||
      range.count > data.dim - range.first) {
    return Status::InvalidArgument();
  }
  DenseDataset out;
  out.samples = data.samples;
  out.dim = range.count;
  out.labels = data.labels;
  out.features.resize(out.samples * out.dim);
  for (size_t j = 0; j < data.samples; ++j) {
    for (size_t c = 0; c < range.count; ++c) {
      out.features[j * out.dim + c] =
          data.features[j * data.dim + range.first + c];
    }
  }
  return out;
}

}  // namespace edgeadmm::fleet
