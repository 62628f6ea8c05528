#include "edgeadmm/privacy/sampled_without_replacement.h"

#include <cmath>

#include "edgeadmm/privacy/gaussian_mechanism.h"
#include "edgeadmm/privacy/mechanism.h"
#include "gtest/gtest.h"

namespace edgeadmm::privacy {
namespace {

TEST(SampledWithoutReplacementTest, OrderTwoMatchesTheorem9ByHand) {
  // K(2) = log(1 + gamma^2 min{4 (e^{1/z^2} - 1), 2 e^{1/z^2}}).
  const double gamma = 0.01, z = 1.0;
  const double expected = std::log1p(
      gamma * gamma * std::min(4.0 * std::expm1(1.0), 2.0 * std::exp(1.0)));
  EXPECT_NEAR(WithoutReplacementGaussianRdp(gamma, z, 2.0).value(), expected,
              1e-14);
  // Fractional orders in (1, 2) interpolate K between K(1) = 0 and K(2):
  // eps(1.5) = 0.5 K(2) / 0.5.
  EXPECT_NEAR(WithoutReplacementGaussianRdp(gamma, z, 1.5).value(), expected,
              1e-14);
}

TEST(SampledWithoutReplacementTest, OrderThreeMatchesTheorem9ByHand) {
  const double gamma = 0.05, z = 2.0;
  const double e2 = 2.0 / (2.0 * z * z), e3 = 3.0 / (2.0 * z * z);
  const double k3 = std::log1p(
      gamma * gamma * 3.0 * std::min(4.0 * std::expm1(e2), 2.0 * std::exp(e2)) +
      2.0 * gamma * gamma * gamma * std::exp(2.0 * e3));
  EXPECT_NEAR(WithoutReplacementGaussianRdp(gamma, z, 3.0).value(), k3 / 2.0,
              1e-14);
}

TEST(SampledWithoutReplacementTest, NeverAboveTheUnsampledGaussian) {
  for (double gamma : {0.001, 0.1, 0.5, 1.0}) {
    for (double z : {0.5, 1.0, 4.0}) {
      for (double alpha : {1.1, 2.0, 3.5, 16.0, 256.0}) {
        const double rdp =
            WithoutReplacementGaussianRdp(gamma, z, alpha).value();
        EXPECT_TRUE(std::isfinite(rdp));
        EXPECT_LE(rdp, GaussianRdp(alpha, z).value());
      }
    }
  }
  // Sampling helps a lot at small gamma.
  EXPECT_LT(WithoutReplacementGaussianRdp(0.01, 2.0, 8.0).value(),
            0.01 * GaussianRdp(8.0, 2.0).value());
}

TEST(SampledWithoutReplacementTest, MonotoneInRatio) {
  double previous = 0.0;
  for (double gamma : {0.001, 0.01, 0.1, 0.3}) {
    const double rdp = WithoutReplacementGaussianRdp(gamma, 1.0, 4.0).value();
    EXPECT_GT(rdp, previous);
    previous = rdp;
  }
}

TEST(SampledWithoutReplacementTest, DescriptorNeedsReplaceOne) {
  Mechanism m;
  m.kind = MechanismKind::kSampledWithoutReplacementGaussian;
  m.sampling_rate = 0.1;
  m.neighbouring = Neighbouring::kAddRemove;
  EXPECT_EQ(RdpAt(m, 2.0).error().code(), StatusCode::kInvalidArgument);
  m.neighbouring = Neighbouring::kReplaceOne;
  EXPECT_NEAR(RdpAt(m, 2.0).value(),
              WithoutReplacementGaussianRdp(0.1, 1.0, 2.0).value(), 0.0);
  EXPECT_EQ(WithoutReplacementGaussianRdp(0.0, 1.0, 2.0).error().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(WithoutReplacementGaussianRdp(0.1, -2.0, 2.0).error().code(),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace edgeadmm::privacy
