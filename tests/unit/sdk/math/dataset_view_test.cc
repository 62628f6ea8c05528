#include "edgeadmm/dataset_view.h"

#include <cmath>

#include "edgeadmm/dataset_maps.h"
#include "gtest/gtest.h"

namespace edgeadmm {
namespace {

// 3 records x 2 features, row norms 5, 1, 0.
const Real kFeatures[] = {3.0, 4.0, 0.0, -1.0, 0.0, 0.0};
const Real kLabels[] = {1.0, -1.0, 0.5};

TEST(DatasetViewTest, MapsCallerMemoryWithoutCopy) {
  auto view = DatasetView::Create(kFeatures, kLabels, 3, 2);
  ASSERT_TRUE(view.ok());
  EXPECT_EQ(view->samples(), 3u);
  EXPECT_EQ(view->dim(), 2u);
  EXPECT_EQ(view->features().data(), kFeatures);
  EXPECT_EQ(view->features().size(), 6u);
  EXPECT_EQ(view->labels().data(), kLabels);
  EXPECT_EQ(view->labels().size(), 3u);
  EXPECT_EQ(FeaturesMap(*view).data(), kFeatures);
  EXPECT_EQ(FeaturesMap(*view).rows(), 3);
  EXPECT_EQ(FeaturesMap(*view).cols(), 2);
  EXPECT_EQ(LabelsMap(*view).data(), kLabels);
  EXPECT_EQ(LabelsMap(*view).size(), 3);
  EXPECT_DOUBLE_EQ(FeaturesMap(*view)(1, 1), -1.0);  // row-major
  EXPECT_DOUBLE_EQ(FeaturesMap(*view)(0, 1), 4.0);
  EXPECT_DOUBLE_EQ(view->MaxRowNorm(), 5.0);
  EXPECT_DOUBLE_EQ(view->MaxAbsLabel(), 1.0);
}

TEST(DatasetViewTest, RejectsBadShapes) {
  const Status bad = Status::InvalidArgument();
  EXPECT_EQ(DatasetView::Create(kFeatures, kLabels, 0, 2).status(), bad);
  EXPECT_EQ(DatasetView::Create(kFeatures, kLabels, 3, 0).status(), bad);
  EXPECT_EQ(DatasetView::Create(kFeatures, kLabels, 2, 3).status(), bad);
  EXPECT_EQ(DatasetView::Create(kFeatures, kLabels, 6, 1).status(), bad);
  EXPECT_EQ(DatasetView::Create(Span<const Real>(kFeatures, 5), kLabels, 3, 2)
                .status(),
            bad);
  EXPECT_EQ(DatasetView::Create(kFeatures, Span<const Real>(kLabels, 2), 3, 2)
                .status(),
            bad);
}

TEST(DatasetViewTest, RejectsSizesAboveTheConfiguredCapacity) {
  // The capacity check comes before any access, so a span of the right
  // length is never read here.
  const size_t too_many = size_t{EDGEADMM_CFG_MAX_LOCAL_SAMPLES} + 1;
  EXPECT_EQ(
      DatasetView::Create(Span<const Real>(kFeatures, too_many),
                          Span<const Real>(kLabels, too_many), too_many, 1)
          .status(),
      Status::InvalidArgument());
  const size_t too_wide = size_t{EDGEADMM_CFG_MAX_FEATURES} + 1;
  EXPECT_EQ(DatasetView::Create(Span<const Real>(kFeatures, too_wide),
                                Span<const Real>(kLabels, 1), 1, too_wide)
                .status(),
            Status::InvalidArgument());
}

TEST(DatasetViewTest, RejectsNanAndInf) {
  Real features[] = {1.0, 2.0, 3.0, 4.0};
  Real labels[] = {1.0, -1.0};
  ASSERT_TRUE(DatasetView::Create(features, labels, 2, 2).ok());
  features[3] = NAN;
  EXPECT_EQ(DatasetView::Create(features, labels, 2, 2).status(),
            Status::InvalidArgument());
  features[3] = 4.0;
  labels[1] = -INFINITY;
  EXPECT_EQ(DatasetView::Create(features, labels, 2, 2).status(),
            Status::InvalidArgument());
}

TEST(DatasetViewTest, DefaultViewIsEmpty) {
  const DatasetView view;
  EXPECT_EQ(view.samples(), 0u);
  EXPECT_EQ(view.dim(), 0u);
  EXPECT_EQ(view.MaxRowNorm(), 0.0);
}

}  // namespace
}  // namespace edgeadmm
