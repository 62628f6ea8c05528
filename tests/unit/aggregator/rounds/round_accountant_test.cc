#include "edgeadmm/rounds/round_accountant.h"

#include <gtest/gtest.h>

#include <cmath>

namespace edgeadmm::rounds {
namespace {

// Index of order `alpha` in the accountant's grid (it must be there).
size_t IndexOf(const RoundAccountant& acc, double alpha) {
  for (size_t i = 0; i < acc.order_count(); ++i) {
    if (acc.orders()[i] == alpha) return i;
  }
  ADD_FAILURE() << "order " << alpha << " not in the grid";
  return 0;
}

TEST(PrivacyRoundAccountantTest, GaussianCurveIsAlphaOverTwoNuSquared) {
  PrivacyRoundAccountant acc;
  const std::vector<double> rdp = acc.RoundRdp({2.0, 1.0});
  ASSERT_EQ(rdp.size(), acc.order_count());
  EXPECT_NEAR(rdp[IndexOf(acc, 2)], 2.0 / 8.0, 1e-12);
  EXPECT_NEAR(rdp[IndexOf(acc, 10)], 10.0 / 8.0, 1e-12);
}

TEST(PrivacyRoundAccountantTest, SubsampledOrderTwoMatchesClosedForm) {
  // α = 2: A = (1−q)² + 2q(1−q) + q²·e^{1/ν²} = 1 + q²(e^{1/ν²} − 1).
  PrivacyRoundAccountant acc;
  const double q = 0.05;
  const double nu = 1.3;
  const std::vector<double> rdp = acc.RoundRdp({nu, q});
  EXPECT_NEAR(rdp[IndexOf(acc, 2)],
              std::log1p(q * q * std::expm1(1 / (nu * nu))), 1e-10);
  // Subsampling never costs more than the full Gaussian.
  const std::vector<double> full = acc.RoundRdp({nu, 1.0});
  for (size_t i = 0; i < rdp.size(); ++i) EXPECT_LE(rdp[i], full[i] + 1e-12);
}

TEST(PrivacyRoundAccountantTest, ZeroNoiseIsInfiniteAndZeroRateIsFree) {
  PrivacyRoundAccountant acc;
  EXPECT_TRUE(std::isinf(acc.Epsilon(acc.RoundRdp({0.0, 1.0}), 1e-5)));
  // Nothing released: only the improved conversion's term
  // log(1 − 1/α) − (log δ + log α)/(α − 1), smallest at the largest order.
  const double a = acc.orders().back();
  EXPECT_NEAR(acc.Epsilon(acc.RoundRdp({1.0, 0.0}), 1e-5),
              std::log1p(-1 / a) - (std::log(1e-5) + std::log(a)) / (a - 1),
              1e-12);
}

// Above the sampler-tails cap (600) ε is reported as +inf, as the device's
// own ledger does (docs/privacy.md, "Sampler tails").
TEST(PrivacyRoundAccountantTest, EpsilonAboveTheCapIsUnbounded) {
  PrivacyRoundAccountant acc;
  // One Gaussian round with ν = 0.02 costs ε ≈ α/(2ν²) ≥ 1375 at α = 1.1.
  EXPECT_TRUE(std::isinf(acc.Epsilon(acc.RoundRdp({0.02, 1.0}), 1e-5)));
  // ν = 0.05: about 200 + conversion, below the cap.
  const double below = acc.Epsilon(acc.RoundRdp({0.05, 1.0}), 1e-5);
  EXPECT_TRUE(std::isfinite(below));
  EXPECT_LE(below, 600.0);
}

TEST(PrivacyRoundAccountantTest, ConversionIsNearTheContinuousOptimum) {
  // K-fold Gaussian: RDP Kα/(2ν²); the continuous minimiser of
  // Kα/(2ν²) + log(1/δ)/(α−1) gives ε* = K/(2ν²) + sqrt(2K·log(1/δ))/ν
  // (classic conversion); the default, improved, conversion is below it.
  PrivacyRoundAccountant acc(privacy::Conversion::kClassic);
  PrivacyRoundAccountant improved;
  const double nu = 5.0;
  const double delta = 1e-5;
  std::vector<double> total(acc.order_count(), 0.0);
  for (int k = 0; k < 10; ++k) ComposeRdp(total, acc.RoundRdp({nu, 1.0}));
  const double optimum =
      10 / (2 * nu * nu) + std::sqrt(2 * 10 * std::log(1 / delta)) / nu;
  const double eps = acc.Epsilon(total, delta);
  EXPECT_GE(eps, optimum - 1e-12);
  EXPECT_LE(eps, optimum * 1.02);
  EXPECT_LT(improved.Epsilon(total, delta), eps);
}

}  // namespace
}  // namespace edgeadmm::rounds
