// Convolution of probability vectors by FFT (Eigen's unsupported FFT module,
// KISS FFT backend), the workhorse of PLD composition (Koskela, Jalko,
// Honkela 2020, "Computing tight differential privacy guarantees using FFT",
// Sec. 4; also Koskela et al. 2021).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace edgeadmm::privacy {

// Smallest power of two >= n (n >= 1).
size_t NextPowerOfTwo(size_t n);

// `count` independent copies of the variable "index + offset" with pmf `pmf`.
struct CyclicFactor {
  const std::vector<double>* pmf;
  int64_t offset;
  uint64_t count;
};

// Cyclic convolution of powers on `size` bins: r[k] is the mass of
// sum over factors j of (the count_j-fold sum of index + offset_j) = k
// (mod size). One forward real FFT per factor, raised pointwise to count_j
// and multiplied in (the transform of a sum of independent variables is the
// product of the transforms, Koskela et al. 2020, eq. 4.2), then one
// inverse. Negative round-off set to 0. size >= 1, a power of two for speed.
std::vector<double> CyclicConvolutionOfPowers(
    const std::vector<CyclicFactor>& factors, size_t size);

}  // namespace edgeadmm::privacy
