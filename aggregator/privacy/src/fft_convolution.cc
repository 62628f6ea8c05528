#include "edgeadmm/privacy/fft_convolution.h"

#include <complex>
#include <unsupported/Eigen/FFT>

namespace edgeadmm::privacy {

size_t NextPowerOfTwo(size_t n) {
  size_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

namespace {

// z^n by repeated squaring (about 2 log2 n products; the relative round-off
// grows to about n ulps, as for exp(n log z)).
std::complex<double> Power(std::complex<double> z, uint64_t n) {
  std::complex<double> result = 1.0;
  while (true) {
    if (n & 1) result *= z;
    n >>= 1;
    if (n == 0) return result;
    z *= z;
  }
}

}  // namespace

std::vector<double> CyclicConvolutionOfPowers(
    const std::vector<CyclicFactor>& factors, size_t size) {
  const int64_t n = static_cast<int64_t>(size);
  // Real input: bins 0..size/2 of the transform determine the rest
  // (conjugate symmetry), so only those are raised and multiplied.
  const size_t half = size / 2 + 1;
  Eigen::FFT<double> fft;  // one plan (twiddles) shared by every transform
  fft.SetFlag(Eigen::FFT<double>::HalfSpectrum);
  std::vector<double> wrapped(size);
  std::vector<std::complex<double>> spectrum(half);
  std::vector<std::complex<double>> product(half, 1.0);
  for (const CyclicFactor& factor : factors) {
    std::fill(wrapped.begin(), wrapped.end(), 0.0);
    size_t k = static_cast<size_t>(((factor.offset % n) + n) % n);
    for (double p : *factor.pmf) {  // index i goes to (i + offset) mod size
      wrapped[k] += p;
      if (++k == size) k = 0;
    }
    fft.fwd(spectrum.data(), wrapped.data(), n);
    for (size_t i = 0; i < half; ++i) {
      product[i] *= Power(spectrum[i], factor.count);
    }
  }
  std::vector<double> r(size);
  fft.inv(r.data(), product.data(), n);
  for (double& x : r) {
    if (!(x > 0.0)) x = 0.0;  // round-off
  }
  return r;
}

}  // namespace edgeadmm::privacy
