#include "edgeadmm/rounds/round_accountant.h"

#include <gtest/gtest.h>

#include <cmath>

namespace edgeadmm::rounds {
namespace {

TEST(FallbackRdpAccountantTest, GaussianCurveIsAlphaOverTwoNuSquared) {
  FallbackRdpAccountant acc;
  const std::vector<double> rdp = acc.RoundRdp({2.0, 1.0});
  ASSERT_EQ(rdp.size(), acc.order_count());
  EXPECT_DOUBLE_EQ(rdp[0], 2.0 / 8.0);   // α = 2
  EXPECT_DOUBLE_EQ(rdp[8], 10.0 / 8.0);  // α = 10
}

TEST(FallbackRdpAccountantTest, SubsampledOrderTwoMatchesClosedForm) {
  // α = 2: A = (1−q)² + 2q(1−q) + q²·e^{1/ν²} = 1 + q²(e^{1/ν²} − 1).
  FallbackRdpAccountant acc;
  const double q = 0.05;
  const double nu = 1.3;
  const std::vector<double> rdp = acc.RoundRdp({nu, q});
  EXPECT_NEAR(rdp[0], std::log1p(q * q * std::expm1(1 / (nu * nu))), 1e-12);
  // Subsampling never costs more than the full Gaussian.
  const std::vector<double> full = acc.RoundRdp({nu, 1.0});
  for (size_t i = 0; i < rdp.size(); ++i) EXPECT_LE(rdp[i], full[i] + 1e-12);
}

TEST(FallbackRdpAccountantTest, ZeroNoiseIsInfiniteAndZeroRateIsFree) {
  FallbackRdpAccountant acc;
  EXPECT_TRUE(std::isinf(acc.Epsilon(acc.RoundRdp({0.0, 1.0}), 1e-5)));
  EXPECT_NEAR(acc.Epsilon(acc.RoundRdp({1.0, 0.0}), 1e-5),
              std::log(1e5) / 511.0, 1e-12);
}

TEST(FallbackRdpAccountantTest, ConversionIsNearTheContinuousOptimum) {
  // K-fold Gaussian: RDP Kα/(2ν²); the continuous minimiser of
  // Kα/(2ν²) + log(1/δ)/(α−1) gives ε* = K/(2ν²) + sqrt(2K·log(1/δ))/ν.
  FallbackRdpAccountant acc;
  const double nu = 5.0;
  const double delta = 1e-5;
  std::vector<double> total(acc.order_count(), 0.0);
  for (int k = 0; k < 10; ++k) ComposeRdp(total, acc.RoundRdp({nu, 1.0}));
  const double optimum =
      10 / (2 * nu * nu) + std::sqrt(2 * 10 * std::log(1 / delta)) / nu;
  const double eps = acc.Epsilon(total, delta);
  EXPECT_GE(eps, optimum - 1e-12);
  EXPECT_LE(eps, optimum * 1.02);
}

}  // namespace
}  // namespace edgeadmm::rounds
