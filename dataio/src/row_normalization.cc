#include "edgeadmm/dataio/row_normalization.h"

#include <algorithm>

#include "edgeadmm/eigen_maps.h"

namespace edgeadmm {

void NormalizeRows(DenseDataset& data, RowNormalization mode) {
  if (mode == RowNormalization::kNone || data.samples == 0) return;
  MatrixMap a(data.features.data(), static_cast<Eigen::Index>(data.samples),
              static_cast<Eigen::Index>(data.dim));
  if (mode == RowNormalization::kUnitNorm) {
    for (Eigen::Index j = 0; j < a.rows(); ++j) {
      const Real norm = a.row(j).norm();
      if (norm > 0) a.row(j) /= norm;
    }
    return;
  }
  Real largest = 0;
  for (Eigen::Index j = 0; j < a.rows(); ++j) {
    largest = std::max(largest, a.row(j).norm());
  }
  if (largest > 0) a /= largest;
}

}  // namespace edgeadmm
