#include "dense_cholesky.h"

#include <cmath>

namespace edgeadmm {
namespace internal {

bool CholeskyFactorInPlace(MatrixMap k) {
  const Eigen::Index n = k.rows();
  for (Eigen::Index i = 0; i < n; ++i) {
    // Row i of L from the rows above it: contiguous dot products.
    for (Eigen::Index j = 0; j < i; ++j) {
      const Real dot = k.row(i).head(j).dot(k.row(j).head(j));
      k(i, j) = (k(i, j) - dot) / k(j, j);
    }
    const Real pivot = k(i, i) - k.row(i).head(i).squaredNorm();
    if (!(pivot > 0)) return false;
    k(i, i) = std::sqrt(pivot);
  }
  return true;
}

void CholeskySolveInPlace(const MatrixMap& l, VectorMap r) {
  const Eigen::Index n = l.rows();
  // Forward: L·y = r, row by row.
  for (Eigen::Index i = 0; i < n; ++i) {
    r(i) = (r(i) - l.row(i).head(i).dot(r.head(i))) / l(i, i);
  }
  // Backward: Lᵀ·x = y, column-oriented so L is read by rows.
  for (Eigen::Index i = n - 1; i >= 0; --i) {
    r(i) /= l(i, i);
    r.head(i) -= r(i) * l.row(i).head(i).transpose();
  }
}

}  // namespace internal
}  // namespace edgeadmm
