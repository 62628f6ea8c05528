// Splitting one data set over the devices of a fleet: by records (horizontal
// federated learning, papers 002/004/001) or by feature columns (vertical,
// papers 000/003). Host only.
#pragma once

#include <cstddef>
#include <vector>

#include "edgeadmm/dataio/dense_dataset.h"
#include "edgeadmm/result.h"

namespace edgeadmm::fleet {

// A contiguous range of records [first, first + count).
struct RecordRange {
  size_t first = 0;
  size_t count = 0;
};

// Splits `samples` records over `devices` devices as evenly as possible (the
// first samples % devices devices get one more). INVALID_ARGUMENT if devices
// is 0 or larger than samples (every device needs a record).
Result<std::vector<RecordRange>> SplitRecords(size_t samples, size_t devices);

// Splits the first sizes[0] + ... + sizes[k-1] of `samples` records into k
// consecutive ranges, range i holding sizes[i] records (an uneven split, e.g.
// paper 001 Fig. 4). INVALID_ARGUMENT if sizes is empty, a size is 0 (every
// device needs a record) or the sizes add up to more than samples.
Result<std::vector<RecordRange>> SplitRecordsBySize(
    size_t samples, const std::vector<size_t>& sizes);

// A contiguous range of feature columns [first, first + count).
struct ColumnRange {
  size_t first = 0;
  size_t count = 0;
};

// Splits `dim` columns over `devices` as evenly as possible. INVALID_ARGUMENT
// if devices is 0 or larger than dim.
Result<std::vector<ColumnRange>> SplitColumns(size_t dim, size_t devices);

// Copies the columns `range` of every record (features are row-major, so a
// column block cannot be a view) with all labels. INVALID_ARGUMENT if the
// range leaves the data set.
Result<DenseDataset> ColumnBlock(const DenseDataset& data, ColumnRange range);

}  // namespace edgeadmm::fleet
