// Private to the SDK: an in-place Cholesky factorization of a small dense SPD
// matrix stored row-major, and the matching solve. Unblocked, so it needs no
// scratch memory (Eigen's blocked LLT may take stack or heap temporaries).
#pragma once

#include "edgeadmm/eigen_maps.h"

namespace edgeadmm {
namespace internal {

// Overwrites the lower triangle of the n x n matrix k with L, k = L·Lᵀ (the
// strict upper triangle is not read). Returns false if a pivot is not
// positive (k not numerically positive definite).
bool CholeskyFactorInPlace(MatrixMap k);

// Solves L·Lᵀ·x = r in place (r becomes x), L from CholeskyFactorInPlace.
void CholeskySolveInPlace(const MatrixMap& l, VectorMap r);

}  // namespace internal
}  // namespace edgeadmm
