// Eigen maps over the SDK's Real arrays (no copy): the one SDK header that
// includes Eigen, for the sources that compute with it (the prox solvers,
// the local steps' kernels). Other code sees Real and Span only, so most
// translation units never parse Eigen (docs/architecture.md, "Build time").
#pragma once

#include <Eigen/Core>

#include "edgeadmm/real.h"

namespace edgeadmm {

using VectorMap = Eigen::Map<Eigen::Matrix<Real, Eigen::Dynamic, 1>>;
using ConstVectorMap = Eigen::Map<const Eigen::Matrix<Real, Eigen::Dynamic, 1>>;
using RowMajorMatrix =
    Eigen::Matrix<Real, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstMatrixMap = Eigen::Map<const RowMajorMatrix>;
using MatrixMap = Eigen::Map<RowMajorMatrix>;

}  // namespace edgeadmm
