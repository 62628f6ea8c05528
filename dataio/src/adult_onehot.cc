#include "edgeadmm/dataio/adult_onehot.h"

#include <algorithm>
#include <cmath>

#include "edgeadmm/dataio/adult_csv_reader.h"
#include "edgeadmm/eigen_maps.h"

namespace edgeadmm {

void ScaleColumnsToMaxOne(DenseDataset& data) {
  if (data.samples == 0) return;
  MatrixMap a(data.features.data(), static_cast<Eigen::Index>(data.samples),
              static_cast<Eigen::Index>(data.dim));
  for (Eigen::Index c = 0; c < a.cols(); ++c) {
    const Real largest = a.col(c).cwiseAbs().maxCoeff();
    if (largest > 0) a.col(c) /= largest;
  }
}

void ClipRowNorms(DenseDataset& data) {
  if (data.samples == 0) return;
  MatrixMap a(data.features.data(), static_cast<Eigen::Index>(data.samples),
              static_cast<Eigen::Index>(data.dim));
  for (Eigen::Index j = 0; j < a.rows(); ++j) {
    const Real norm = a.row(j).norm();
    if (norm > 1) a.row(j) /= norm;
  }
}

host::ErrorOr<DenseDataset> ReadAdultOneHot(const std::string& data_path,
                                            const std::string& test_path,
                                            AdultOneHotStats* stats) {
  AdultCsvStats train_stats, test_stats;
  EDGEADMM_HOST_TRY_ASSIGN(DenseDataset data,
                           ReadAdultCsvFile(data_path, &train_stats));
  EDGEADMM_HOST_TRY_ASSIGN(const DenseDataset test,
                           ReadAdultCsvFile(test_path, &test_stats));
  const size_t train_records = data.samples;
  data.features.insert(data.features.end(), test.features.begin(),
                       test.features.end());
  data.labels.insert(data.labels.end(), test.labels.begin(), test.labels.end());
  data.samples += test.samples;
  ScaleColumnsToMaxOne(data);
  ClipRowNorms(data);
  if (stats != nullptr) {
    stats->records = train_stats.records + test_stats.records;
    stats->dropped_missing =
        train_stats.dropped_missing + test_stats.dropped_missing;
    stats->train_records = train_records;
  }
  return data;
}

}  // namespace edgeadmm
