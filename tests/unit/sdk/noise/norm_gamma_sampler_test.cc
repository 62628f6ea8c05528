// Paper 001 Alg. 1 noise: Gamma(d, 1/α) norm and uniform direction; the
// Gamma sampler's moments. Portable.
#include "edgeadmm/norm_gamma_sampler.h"

#include <cmath>

#include "gtest/gtest.h"
#include "seeded_sampler.h"

namespace edgeadmm {
namespace {

// Sample mean and variance of n Gamma(shape, scale) draws.
void GammaMoments(GaussianSampler& s, double shape, double scale, int n,
                  double* mean, double* variance) {
  double sum = 0, sum2 = 0;
  for (int i = 0; i < n; ++i) {
    Result<double> g = SampleGamma(s, shape, scale);
    ASSERT_TRUE(g.ok());
    ASSERT_GT(*g, 0.0);
    sum += *g;
    sum2 += *g * *g;
  }
  *mean = sum / n;
  *variance = sum2 / n - *mean * *mean;
}

TEST(SampleGammaTest, MomentsMatchForLargeAndSmallShape) {
  SeededSampler s(31);
  double mean = 0, variance = 0;
  // Gamma(105, 1/3): mean 35, variance 105/9; excess kurtosis 6/105.
  constexpr int kN = 4000;
  GammaMoments(s.sampler(), 105, 1.0 / 3, kN, &mean, &variance);
  EXPECT_NEAR(mean, 35.0, 5 * std::sqrt(105.0 / 9 / kN));
  EXPECT_NEAR(variance, 105.0 / 9,
              5 * (105.0 / 9) * std::sqrt((2 + 6.0 / 105) / kN));
  // Gamma(0.5, 2) (the U^(1/a) branch): mean 1, variance 2, kurtosis 12.
  constexpr int kM = 20000;
  GammaMoments(s.sampler(), 0.5, 2.0, kM, &mean, &variance);
  EXPECT_NEAR(mean, 1.0, 5 * std::sqrt(2.0 / kM));
  EXPECT_NEAR(variance, 2.0, 5 * 2.0 * std::sqrt((2 + 12.0) / kM));
}

TEST(SampleGammaTest, RejectsBadParameters) {
  SeededSampler s(32);
  EXPECT_EQ(SampleGamma(s.sampler(), 0, 1).status(), Status::InvalidArgument());
  EXPECT_EQ(SampleGamma(s.sampler(), 1, -1).status(),
            Status::InvalidArgument());
  EXPECT_EQ(SampleGamma(s.sampler(), std::nan(""), 1).status(),
            Status::InvalidArgument());
  EXPECT_EQ(SampleGamma(s.sampler(), 1, INFINITY).status(),
            Status::InvalidArgument());
}

TEST(NormGammaNoiseTest, MeanNormIsDOverAlphaAndDirectionIsSymmetric) {
  constexpr size_t kD = 105;
  constexpr double kAlpha = 3.0;
  constexpr int kN = 2000;
  SeededSampler s(33);
  Real eps[kD];
  double coordinate_sum[kD] = {};
  double norm_sum = 0, norm_sum2 = 0;
  for (int i = 0; i < kN; ++i) {
    ASSERT_TRUE(
        SampleNormGammaNoise(s.sampler(), kAlpha, Span<Real>(eps, kD)).ok());
    double norm2 = 0;
    for (size_t j = 0; j < kD; ++j) {
      const double e = eps[j];
      coordinate_sum[j] += e;
      norm2 += e * e;
    }
    norm_sum += std::sqrt(norm2);
    norm_sum2 += norm2;
  }
  // ‖ε‖ ~ Gamma(d, 1/α): mean d/α = 35, variance d/α².
  const double mean_norm = norm_sum / kN;
  EXPECT_NEAR(mean_norm, kD / kAlpha,
              5 * std::sqrt(kD / (kAlpha * kAlpha) / kN));
  EXPECT_NEAR(norm_sum2 / kN - mean_norm * mean_norm, kD / (kAlpha * kAlpha),
              0.1 * kD / (kAlpha * kAlpha));
  // Each coordinate has mean 0 and variance E‖ε‖²/d = (d + 1)/α².
  const double coordinate_se = std::sqrt((kD + 1) / (kAlpha * kAlpha) / kN);
  for (size_t j = 0; j < kD; ++j) {
    EXPECT_NEAR(coordinate_sum[j] / kN, 0.0, 5 * coordinate_se) << j;
  }
}

TEST(NormGammaNoiseTest, OneDimensionTakesBothSigns) {
  SeededSampler s(34);
  int positive = 0;
  constexpr int kN = 400;
  for (int i = 0; i < kN; ++i) {
    Real x[1];
    ASSERT_TRUE(SampleNormGammaNoise(s.sampler(), 1.0, x).ok());
    positive += x[0] > 0;
  }
  // Binomial(400, 1/2): 5 sigma = 50.
  EXPECT_NEAR(positive, kN / 2, 50);
}

TEST(NormGammaNoiseTest, RejectsBadAlphaAndAcceptsEmpty) {
  SeededSampler s(35);
  Real x[3] = {7, 7, 7};
  EXPECT_EQ(SampleNormGammaNoise(s.sampler(), 0.0, x),
            Status::InvalidArgument());
  EXPECT_EQ(SampleNormGammaNoise(s.sampler(), -2.0, x),
            Status::InvalidArgument());
  EXPECT_EQ(SampleNormGammaNoise(s.sampler(), std::nan(""), x),
            Status::InvalidArgument());
  EXPECT_EQ(x[0], 7.0);
  EXPECT_TRUE(SampleNormGammaNoise(s.sampler(), 1.0, Span<Real>()).ok());
}

}  // namespace
}  // namespace edgeadmm
