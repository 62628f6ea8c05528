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

void ClampRoundOff(std::vector<double>* v) {
  for (double& x : *v) {
    if (!(x > 0.0)) x = 0.0;
  }
}

}  // namespace

std::vector<double> ConvolveLinear(const std::vector<double>& a,
                                   const std::vector<double>& b) {
  const size_t out = a.size() + b.size() - 1;
  const size_t n = NextPowerOfTwo(out);
  std::vector<double> pa(a), pb(b);
  pa.resize(n, 0.0);
  pb.resize(n, 0.0);
  Eigen::FFT<double> fft;
  std::vector<std::complex<double>> fa, fb;
  fft.fwd(fa, pa);
  fft.fwd(fb, pb);
  for (size_t i = 0; i < fa.size(); ++i) fa[i] *= fb[i];
  std::vector<double> c;
  fft.inv(c, fa);
  c.resize(out);
  ClampRoundOff(&c);
  return c;
}

std::vector<double> CyclicSelfConvolutionPower(const std::vector<double>& a,
                                               int64_t offset, size_t size,
                                               uint64_t count) {
  const int64_t n = static_cast<int64_t>(size);
  std::vector<double> wrapped(size, 0.0);
  for (size_t i = 0; i < a.size(); ++i) {
    int64_t k = (static_cast<int64_t>(i) + offset) % n;
    if (k < 0) k += n;
    wrapped[static_cast<size_t>(k)] += a[i];
  }
  Eigen::FFT<double> fft;
  std::vector<std::complex<double>> f;
  fft.fwd(f, wrapped);
  // The transform of a sum of independent variables is the product of the
  // transforms (Koskela et al. 2020, eq. 4.2): raise each bin to `count`.
  for (auto& x : f) x = std::pow(x, static_cast<double>(count));
  std::vector<double> r;
  fft.inv(r, f);
  ClampRoundOff(&r);
  return r;
}

}  // namespace edgeadmm::privacy
