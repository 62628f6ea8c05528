// A DatasetView as Eigen maps (no copy), for the sources that compute with
// Eigen (edgeadmm/eigen_maps.h).
#pragma once

#include "edgeadmm/dataset_view.h"
#include "edgeadmm/eigen_maps.h"

namespace edgeadmm {

// The samples x dim feature matrix A (row-major).
ConstMatrixMap FeaturesMap(const DatasetView& view);

// The label vector b.
ConstVectorMap LabelsMap(const DatasetView& view);

}  // namespace edgeadmm
