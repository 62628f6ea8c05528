#include "edgeadmm/algorithms/sum_grid.h"

#include <cmath>
#include <limits>

namespace edgeadmm::algorithms {

Status RoundSumToGrid(double noise_std, std::vector<double>& v) {
  if (!std::isfinite(noise_std) || !(noise_std > 0)) {
    return Status::InvalidArgument();
  }
  const int bits = static_cast<int>(kSumGridBits);
  for (double& x : v) {
    if (!std::isfinite(x)) return Status::InvalidArgument();
    // (x/s)·2^bits: the scaling by 2^bits is exact.
    const double steps = std::round(std::ldexp(x / noise_std, bits));
    if (!(std::fabs(steps) < 0x1p52)) return Status::OutOfRange();
    x = steps;
  }
  return Status::Ok();
}

double SumGridNoiseMultiplier(double nu, size_t dim) {
  if (!(nu > 0)) return 0.0;
  const double inf = std::numeric_limits<double>::infinity();
  const double root = std::sqrt(static_cast<double>(dim));
  const double rounding = std::nextafter(
      std::ldexp(nu * root, -static_cast<int>(kSumGridBits)), inf);
  const double inflation = std::nextafter(1 + rounding, inf);
  // σ'/σ = √(1 − τ²/4^bits); 1 − 16·2^-30 is exact, the root rounded down.
  const double bridge = std::nextafter(
      std::sqrt(1 - std::ldexp(kSumGridBridgeTau * kSumGridBridgeTau,
                               -2 * static_cast<int>(kSumGridBits))),
      0.0);
  return std::nextafter(std::nextafter(nu / inflation, 0.0) * bridge, 0.0);
}

}  // namespace edgeadmm::algorithms
