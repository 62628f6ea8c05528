// The SDK's floating-point type for models, data and noise.
//
// Double precision everywhere: the privacy analysis assumes the Gaussian noise
// is sampled accurately, and the prox tolerances (1e-10 KKT residual) need it.
// On a Cortex-M4F this costs soft-float double arithmetic; see docs/porting.md.
#pragma once

#include <Eigen/Core>

namespace edgeadmm {

using Real = double;

using VectorMap = Eigen::Map<Eigen::Matrix<Real, Eigen::Dynamic, 1>>;
using ConstVectorMap = Eigen::Map<const Eigen::Matrix<Real, Eigen::Dynamic, 1>>;
using RowMajorMatrix =
    Eigen::Matrix<Real, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstMatrixMap = Eigen::Map<const RowMajorMatrix>;
using MatrixMap = Eigen::Map<RowMajorMatrix>;

}  // namespace edgeadmm
