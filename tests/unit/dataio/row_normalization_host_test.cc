#include <cmath>

#include "edgeadmm/dataio/row_normalization.h"
#include "gtest/gtest.h"

namespace edgeadmm {
namespace {

DenseDataset Small() {
  DenseDataset d;
  d.samples = 3;
  d.dim = 2;
  d.features = {3, 4, 0, 0, 0.6, 0.8};  // norms 5, 0, 1
  d.labels = {1, -1, 1};
  return d;
}

TEST(RowNormalizationTest, UnitNormScalesEachNonZeroRow) {
  DenseDataset d = Small();
  NormalizeRows(d, RowNormalization::kUnitNorm);
  EXPECT_EQ(d.features, (std::vector<Real>{0.6, 0.8, 0, 0, 0.6, 0.8}));
}

TEST(RowNormalizationTest, MaxNormKeepsRelativeGeometry) {
  DenseDataset d = Small();
  NormalizeRows(d, RowNormalization::kMaxNorm);
  const Real expected[] = {0.6, 0.8, 0, 0, 0.12, 0.16};
  for (size_t i = 0; i < 6; ++i) EXPECT_NEAR(d.features[i], expected[i], 1e-15);
  auto view = d.View();
  ASSERT_TRUE(view.ok());
  EXPECT_NEAR(view->MaxRowNorm(), 1.0, 1e-15);
}

TEST(RowNormalizationTest, NoneLeavesDataAlone) {
  DenseDataset d = Small();
  NormalizeRows(d, RowNormalization::kNone);
  EXPECT_EQ(d.features, Small().features);
}

}  // namespace
}  // namespace edgeadmm
