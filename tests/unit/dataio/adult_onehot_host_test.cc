#include <cmath>
#include <vector>

#include "data_files.h"
#include "edgeadmm/dataio/adult_csv_reader.h"
#include "edgeadmm/dataio/adult_onehot.h"
#include "edgeadmm/eigen_maps.h"
#include "gtest/gtest.h"

namespace edgeadmm {
namespace {

using dataio_testing::DataPath;

DenseDataset Make(size_t samples, size_t dim, std::vector<Real> features) {
  DenseDataset d;
  d.samples = samples;
  d.dim = dim;
  d.features = std::move(features);
  d.labels.assign(samples, 1.0);
  return d;
}

TEST(AdultOneHotTest, ScalesColumnsToMaxOneAndKeepsZeroColumns) {
  DenseDataset d = Make(2, 3, {2, 0, -4, 1, 0, 2});
  ScaleColumnsToMaxOne(d);
  EXPECT_EQ(d.features, (std::vector<Real>{1, 0, -1, 0.5, 0, 0.5}));
}

TEST(AdultOneHotTest, ClipsOnlyRowsAboveNormOne) {
  DenseDataset d = Make(2, 2, {3, 4, 0.3, 0.4});
  ClipRowNorms(d);
  EXPECT_DOUBLE_EQ(d.features[0], 0.6);
  EXPECT_DOUBLE_EQ(d.features[1], 0.8);
  EXPECT_DOUBLE_EQ(d.features[2], 0.3);  // norm 0.5 stays
  EXPECT_DOUBLE_EQ(d.features[3], 0.4);
}

// The documented counts (adult_onehot.h, docs/results.md): 45,222 x 105,
// every non-zero column with max 1 before the row step, rows of norm <= 1.
TEST(AdultOneHotTest, ReadsTheRealFilesWithTheDocumentedShape) {
  AdultOneHotStats stats;
  auto data = ReadAdultOneHot(DataPath("adult.data.xz"),
                              DataPath("adult.test.xz"), &stats);
  ASSERT_TRUE(data.ok()) << data.error().ToString();
  EXPECT_EQ(stats.records, 32561u + 16281u);
  EXPECT_EQ(stats.dropped_missing, 2399u + 1221u);
  EXPECT_EQ(stats.train_records, 30162u);
  EXPECT_EQ(data->samples, 45222u);
  EXPECT_EQ(data->dim, kAdultFeatures);
  EXPECT_EQ(data->dim, 105u);
  size_t positives = 0;
  for (Real b : data->labels) positives += b > 0;
  EXPECT_EQ(positives, 7508u + 3700u);
  ConstMatrixMap a(data->features.data(), 45222, 105);
  size_t zero_columns = 0;
  for (Eigen::Index c = 0; c < a.cols(); ++c) {
    const Real largest = a.col(c).maxCoeff();
    EXPECT_GE(a.col(c).minCoeff(), 0.0) << c;
    if (largest == 0) ++zero_columns;
  }
  EXPECT_EQ(zero_columns, 1u);  // workclass "Never-worked" (column 1 + 7)
  EXPECT_EQ(a.col(1 + 7).maxCoeff(), 0.0);
  for (Eigen::Index j = 0; j < a.rows(); ++j) {
    ASSERT_LE(a.row(j).norm(), 1.0 + 1e-12) << j;
  }
  // Column max 1 is checked before the row step: redo steps 3 on the raw
  // encoding and compare the column maxima.
  auto train = ReadAdultCsvFile(DataPath("adult.data.xz"));
  auto test = ReadAdultCsvFile(DataPath("adult.test.xz"));
  ASSERT_TRUE(train.ok() && test.ok());
  DenseDataset both = *train;
  both.features.insert(both.features.end(), test->features.begin(),
                       test->features.end());
  both.labels.insert(both.labels.end(), test->labels.begin(),
                     test->labels.end());
  both.samples += test->samples;
  ScaleColumnsToMaxOne(both);
  ConstMatrixMap s(both.features.data(), 45222, 105);
  for (Eigen::Index c = 0; c < s.cols(); ++c) {
    if (c == 1 + 7) continue;
    EXPECT_DOUBLE_EQ(s.col(c).maxCoeff(), 1.0) << c;
  }
  // Every row had 8 one-hot ones, so step 4 made every row unit-norm.
  EXPECT_NEAR(a.row(0).norm(), 1.0, 1e-12);
  EXPECT_EQ(data->labels[0], -1.0);
}

}  // namespace
}  // namespace edgeadmm
