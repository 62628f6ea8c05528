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

// Linear convolution c[k] = sum_i a[i] b[k - i], size a.size() + b.size() - 1.
// Entries that come out of the transform below zero (round-off) are set to 0.
std::vector<double> ConvolveLinear(const std::vector<double>& a,
                                   const std::vector<double>& b);

// Cyclic self-convolution power on `size` bins: r[k] = sum over index tuples
// (i_1..i_count) with (i_1 + ... + i_count + count * offset) = k (mod size) of
// prod a[i_t], i.e. the count-fold sum of the variable "index + offset"
// reduced mod size. Negative round-off set to 0. size >= 1, a power of two
// for speed.
std::vector<double> CyclicSelfConvolutionPower(const std::vector<double>& a,
                                               int64_t offset, size_t size,
                                               uint64_t count);

}  // namespace edgeadmm::privacy
