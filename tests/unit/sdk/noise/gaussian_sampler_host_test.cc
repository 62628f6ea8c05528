// Gaussian sampler, host-only: Kolmogorov–Smirnov on 100k draws (needs
// 800 KB) for several seeds, with a power check against a 0.03 shift.
#include <algorithm>
#include <cmath>
#include <vector>

#include "edgeadmm/fake/test_entropy.h"
#include "edgeadmm/gaussian_sampler.h"
#include "gtest/gtest.h"

namespace edgeadmm {
namespace {

Real KsStatistic(const std::vector<Real>& sorted) {
  const Real n = static_cast<Real>(sorted.size());
  Real d = 0;
  for (size_t i = 0; i < sorted.size(); ++i) {
    const Real f = 0.5 * std::erfc(-sorted[i] / std::sqrt(2.0));
    d = std::max({d, (i + 1) / n - f, f - i / n});
  }
  return d;
}

TEST(GaussianSamplerHostTest, KolmogorovSmirnovOn100kDraws) {
  constexpr size_t kN = 100000;
  const Real critical = 1.94947 / std::sqrt(Real{kN});  // α = 0.001
  for (uint64_t seed : {1u, 2u, 3u}) {
    TestEntropy entropy(seed);
    Drbg drbg;
    ASSERT_TRUE(drbg.Init(entropy, ConstByteSpan()).ok());
    GaussianSampler sampler(drbg);
    std::vector<Real> sample(kN, 0.0);
    ASSERT_TRUE(sampler.AddNoise(1.0, Span<Real>(sample.data(), kN)).ok());
    std::sort(sample.begin(), sample.end());
    const Real d = KsStatistic(sample);
    EXPECT_LT(d, critical) << "seed " << seed;
    for (Real& z : sample) z += 0.03;
    EXPECT_GT(KsStatistic(sample), critical) << "seed " << seed;
  }
}

}  // namespace
}  // namespace edgeadmm
