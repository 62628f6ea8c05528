// Gaussian sampler: moments over 100k draws within 5-sigma bounds, a
// Kolmogorov–Smirnov test against the normal CDF, AddNoise scaling and
// argument checks. Portable (static arrays only).
#include "edgeadmm/gaussian_sampler.h"

#include <algorithm>
#include <cmath>

#include "gtest/gtest.h"
#include "seeded_sampler.h"

namespace edgeadmm {
namespace {

Real Draw(GaussianSampler& s) {
  Result<Real> z = s.Standard();
  EXPECT_TRUE(z.ok());
  return z.ok() ? *z : 0.0;
}

Real NormalCdf(Real x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

// Kolmogorov–Smirnov statistic of the sorted sample against N(0, 1).
Real KsStatistic(const Real* sorted, size_t n) {
  Real d = 0;
  for (size_t i = 0; i < n; ++i) {
    const Real f = NormalCdf(sorted[i]);
    d = std::max(d, std::max(static_cast<Real>(i + 1) / n - f,
                             f - static_cast<Real>(i) / n));
  }
  return d;
}

TEST(GaussianSamplerTest, UniformsAreInsideTheOpenInterval) {
  SeededSampler s(1);
  constexpr int kN = 20000;
  Real sum = 0;
  for (int i = 0; i < kN; ++i) {
    Result<Real> u = s.sampler().Uniform01();
    ASSERT_TRUE(u.ok());
    ASSERT_GT(*u, 0.0);
    ASSERT_LT(*u, 1.0);
    sum += *u;
  }
  // Mean 1/2, std of the mean sqrt(1/12/N).
  EXPECT_NEAR(sum / kN, 0.5, 5 * std::sqrt(1.0 / 12 / kN));
}

TEST(GaussianSamplerTest, MomentsOf100kDrawsAreWithinFiveSigma) {
  SeededSampler s(2024);
  constexpr int kN = 100000;
  Real sum = 0, sum2 = 0, sum4 = 0;
  for (int i = 0; i < kN; ++i) {
    const Real z = Draw(s.sampler());
    sum += z;
    sum2 += z * z;
    sum4 += z * z * z * z;
  }
  const Real mean = sum / kN;
  const Real variance = sum2 / kN - mean * mean;
  // Standard errors: mean 1/sqrt(N); variance sqrt(2/N); E z^4 = 3 with
  // Var z^4 = 105 - 9 = 96.
  EXPECT_NEAR(mean, 0.0, 5 / std::sqrt(Real{kN}));
  EXPECT_NEAR(variance, 1.0, 5 * std::sqrt(2.0 / kN));
  EXPECT_NEAR(sum4 / kN, 3.0, 5 * std::sqrt(96.0 / kN));
}

TEST(GaussianSamplerTest, KolmogorovSmirnovAgainstNormalCdf) {
  constexpr size_t kN = 2048;
  static Real sample[kN];
  SeededSampler s(77);
  for (Real& z : sample) z = Draw(s.sampler());
  std::sort(sample, sample + kN);
  // Critical value at α = 0.001: K(0.999) / sqrt(n), K = 1.94947.
  const Real critical = 1.94947 / std::sqrt(Real{kN});
  EXPECT_LT(KsStatistic(sample, kN), critical);
  // The same test rejects a sample shifted by 0.2 (power check).
  for (Real& z : sample) z += 0.2;
  EXPECT_GT(KsStatistic(sample, kN), critical);
}

TEST(GaussianSamplerTest, AddNoiseScalesByStddev) {
  SeededSampler a(5), b(5);
  constexpr size_t kN = 64;
  Real unit[kN] = {};
  Real scaled[kN];
  for (Real& x : scaled) x = 10.0;
  ASSERT_TRUE(a.sampler().AddNoise(1.0, Span<Real>(unit, kN)).ok());
  ASSERT_TRUE(b.sampler().AddNoise(2.5, Span<Real>(scaled, kN)).ok());
  int nonzero = 0;
  for (size_t i = 0; i < kN; ++i) {
    EXPECT_NEAR(scaled[i] - 10.0, 2.5 * unit[i], 1e-12);
    nonzero += unit[i] != 0;
  }
  EXPECT_EQ(nonzero, static_cast<int>(kN));
}

TEST(GaussianSamplerTest, AddNoiseHasTheRequestedSpread) {
  SeededSampler s(6);
  constexpr size_t kN = 2048;
  static Real v[kN];
  for (Real& x : v) x = -1.0;
  ASSERT_TRUE(s.sampler().AddNoise(3.0, Span<Real>(v, kN)).ok());
  Real sum = 0, sum2 = 0;
  for (const Real x : v) {
    sum += x + 1.0;
    sum2 += (x + 1.0) * (x + 1.0);
  }
  EXPECT_NEAR(sum / kN, 0.0, 5 * 3.0 / std::sqrt(Real{kN}));
  EXPECT_NEAR(sum2 / kN, 9.0, 5 * 9.0 * std::sqrt(2.0 / kN));
}

TEST(GaussianSamplerTest, AddNoiseRejectsBadStddevAndSkipsZero) {
  SeededSampler s(7);
  Real v[3] = {1.0, 2.0, 3.0};
  EXPECT_EQ(s.sampler().AddNoise(-1.0, v), Status::InvalidArgument());
  EXPECT_EQ(s.sampler().AddNoise(std::nan(""), v), Status::InvalidArgument());
  EXPECT_EQ(s.sampler().AddNoise(INFINITY, v), Status::InvalidArgument());
  EXPECT_TRUE(s.sampler().AddNoise(0.0, v).ok());
  EXPECT_EQ(v[0], 1.0);
  EXPECT_EQ(v[1], 2.0);
  EXPECT_EQ(v[2], 3.0);
}

TEST(GaussianSamplerTest, SameSeedSameNoise) {
  SeededSampler a(8), b(8), c(9);
  for (int i = 0; i < 100; ++i) {
    const Real za = Draw(a.sampler());
    EXPECT_EQ(za, Draw(b.sampler()));
    EXPECT_NE(za, Draw(c.sampler()));
  }
}

TEST(GaussianSamplerTest, UninitialisedDrbgIsReported) {
  Drbg drbg;
  GaussianSampler sampler(drbg);
  EXPECT_EQ(sampler.Standard().status(), Status::FailedPrecondition());
  Real v[2] = {};
  EXPECT_EQ(sampler.AddNoise(1.0, v), Status::FailedPrecondition());
}

}  // namespace
}  // namespace edgeadmm
