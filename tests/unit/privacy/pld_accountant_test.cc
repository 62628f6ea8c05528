// PLD accountant: the discrete PLD's delta/epsilon algebra, connect-the-dots
// domination of the exact one-round curve, FFT composition against the
// analytic Gaussian, and refusal of bad input.
#include "edgeadmm/privacy/pld_accountant.h"

#include <cmath>

#include "edgeadmm/privacy/privacy_loss_distribution.h"
#include "edgeadmm/privacy/subsampled_gaussian_pld.h"
#include "gtest/gtest.h"

namespace edgeadmm::privacy {
namespace {

// Balle & Wang 2018, Thm. 8 (sensitivity 1, noise multiplier nu).
double AnalyticGaussianDelta(double nu, double eps) {
  const auto phi = [](double x) {
    return 0.5 * std::erfc(-x / std::sqrt(2.0));
  };
  return phi(0.5 / nu - eps * nu) - std::exp(eps) * phi(-0.5 / nu - eps * nu);
}

TEST(PrivacyLossDistributionTest, DeltaAndEpsilonOfATwoPointPld) {
  // Mass 0.5 at loss 0 and 0.5 at loss 1 (step 1), 1e-6 at infinity.
  auto pld = PrivacyLossDistribution::Create(1.0, 0, {0.5, 0.5 - 1e-6}, 1e-6);
  ASSERT_TRUE(pld.ok());
  EXPECT_NEAR(pld.value().Delta(0.5),
              1e-6 + (0.5 - 1e-6) * (1.0 - std::exp(-0.5)), 1e-15);
  EXPECT_DOUBLE_EQ(pld.value().Delta(1.0), 1e-6);
  auto eps = pld.value().Epsilon(pld.value().Delta(0.3));
  ASSERT_TRUE(eps.ok());
  EXPECT_NEAR(eps.value(), 0.3, 1e-12);
  EXPECT_TRUE(std::isinf(pld.value().Epsilon(1e-7).value()));
}

TEST(PrivacyLossDistributionTest, RefusesBadInput) {
  EXPECT_FALSE(PrivacyLossDistribution::Create(0.0, 0, {1.0}, 0.0).ok());
  EXPECT_FALSE(PrivacyLossDistribution::Create(1.0, 0, {}, 0.0).ok());
  EXPECT_FALSE(PrivacyLossDistribution::Create(1.0, 0, {-0.1}, 0.0).ok());
  EXPECT_FALSE(PrivacyLossDistribution::Create(1.0, 0, {1.0}, 1.5).ok());
  auto a = PrivacyLossDistribution::Create(1.0, 0, {1.0}, 0.0).value();
  auto b = PrivacyLossDistribution::Create(0.5, 0, {1.0}, 0.0).value();
  EXPECT_FALSE(PrivacyLossDistribution::Compose({{&a, 1}, {&b, 1}}, 1e-15).ok());
  EXPECT_FALSE(PrivacyLossDistribution::Compose({{&a, 0}}, 1e-15).ok());
  EXPECT_FALSE(PrivacyLossDistribution::Compose({}, 1e-15).ok());
  EXPECT_FALSE(a.Epsilon(0.0).ok());
  PldAccountant accountant;
  EXPECT_FALSE(accountant.Compose(0.0, 1.0).ok());
  EXPECT_FALSE(accountant.Compose(1.5, 1.0).ok());
  EXPECT_FALSE(accountant.Compose(0.1, -1.0).ok());
  EXPECT_FALSE(accountant.Compose(0.1, 1.0, 0).ok());
  EXPECT_FALSE(accountant.Delta(-1.0).ok());
  EXPECT_FALSE(accountant.Epsilon(1.0).ok());
}

TEST(PrivacyLossDistributionTest, ComposeOnTinyWindowsIsExact) {
  // A point mass composed with itself (a window of one bin) and the n-fold
  // fair coin {-1, 0} plus a point at 2: binomial(n, 1/2) on [2 - n, 2].
  auto point = PrivacyLossDistribution::Create(1.0, 2, {1.0}, 0.0).value();
  auto points = PrivacyLossDistribution::Compose({{&point, 5}}, 1e-15);
  ASSERT_TRUE(points.ok());
  EXPECT_EQ(points.value().min_index(), 10);
  EXPECT_NEAR(points.value().Delta(9.0), 1.0 - std::exp(-1.0), 1e-12);
  auto coin = PrivacyLossDistribution::Create(1.0, -1, {0.5, 0.5}, 0.0).value();
  for (uint64_t n : {1u, 2u, 3u, 4u}) {
    auto sum = PrivacyLossDistribution::Compose({{&coin, n}, {&point, 1}},
                                                1e-15);
    ASSERT_TRUE(sum.ok());
    const auto& pmf = sum.value().pmf();
    double binomial = std::pow(0.5, static_cast<double>(n));
    for (uint64_t k = 0; k <= n; ++k) {
      const int64_t at = 2 - static_cast<int64_t>(n) + static_cast<int64_t>(k) -
                         sum.value().min_index();
      ASSERT_GE(at, 0);
      ASSERT_LT(static_cast<size_t>(at), pmf.size());
      EXPECT_NEAR(pmf[static_cast<size_t>(at)], binomial, 1e-12) << n << " " << k;
      binomial *= static_cast<double>(n - k) / static_cast<double>(k + 1);
    }
  }
}

TEST(SubsampledGaussianPldTest,
     ConnectTheDotsDominatesTheExactCurveEverywhere) {
  for (double q : {0.01, 0.2, 1.0}) {
    for (double nu : {0.7, 2.0}) {
      for (PldDirection dir : {PldDirection::kRemove, PldDirection::kAdd}) {
        auto pld = SubsampledGaussianPld(q, nu, dir, 1e-2, 1e-15);
        ASSERT_TRUE(pld.ok());
        double total = pld.value().infinity_mass();
        for (double p : pld.value().pmf()) total += p;
        EXPECT_NEAR(total, 1.0, 1e-10);  // round-off in p_j
        // Off the grid points (where the chord is strictly above).
        for (double eps = -3.0; eps <= 6.0; eps += 0.0137) {
          const double exact = SubsampledGaussianDelta(q, nu, dir, eps).value();
          EXPECT_GE(pld.value().Delta(eps), exact * (1 - 1e-9) - 1e-15)
              << "q " << q << " nu " << nu << " " << PldDirectionName(dir)
              << " eps " << eps;
        }
      }
    }
  }
}

TEST(PldAccountantTest, GaussianCompositionMatchesTheAnalyticCurve) {
  // T Gaussians with nu compose to one with nu / sqrt(T) (exact).
  for (double nu : {1.0, 3.0}) {
    for (uint64_t t : {1u, 10u, 100u}) {
      PldAccountant accountant;
      ASSERT_TRUE(accountant.Compose(1.0, nu, t).ok());
      for (double eps : {0.5, 1.0, 2.0}) {
        const double exact =
            AnalyticGaussianDelta(nu / std::sqrt(static_cast<double>(t)), eps);
        if (exact < 1e-12) continue;
        const double got = accountant.Delta(eps).value();
        EXPECT_GE(got, exact) << nu << " " << t << " " << eps;
        EXPECT_LE(got, exact * 1.01 + 1e-13) << nu << " " << t << " " << eps;
      }
    }
  }
}

TEST(PldAccountantTest, ManyDistinctGaussiansMatchTheAnalyticCurve) {
  // 100 distinct Gaussians (composed in batches of 64 with the running
  // total): one Gaussian with 1/nu^2 = sum_i 1/nu_i^2.
  PldAccountant accountant;
  double precision = 0.0;
  for (int i = 0; i < 100; ++i) {
    const double nu = 8.0 + 0.05 * i;
    ASSERT_TRUE(accountant.Compose(1.0, nu).ok());
    precision += 1.0 / (nu * nu);
  }
  for (double eps : {0.5, 1.0, 2.0}) {
    const double exact =
        AnalyticGaussianDelta(1.0 / std::sqrt(precision), eps);
    const double got = accountant.Delta(eps).value();
    EXPECT_GE(got, exact) << eps;
    EXPECT_LE(got, exact * 1.01 + 1e-13) << eps;
  }
}

TEST(PldAccountantTest, HeterogeneousEqualsSplitSchedule) {
  // (q, nu, 30) composed at once or as 10 + 20 gives the same numbers, and
  // the order of distinct mechanisms does not matter.
  PldAccountant a, b;
  ASSERT_TRUE(a.Compose(0.05, 1.0, 30).ok());
  ASSERT_TRUE(a.Compose(1.0, 8.0, 5).ok());
  ASSERT_TRUE(b.Compose(1.0, 8.0, 5).ok());
  ASSERT_TRUE(b.Compose(0.05, 1.0, 10).ok());
  ASSERT_TRUE(b.Compose(0.05, 1.0, 20).ok());
  EXPECT_EQ(a.compositions(), 35u);
  EXPECT_EQ(a.MechanismLabel(), "gaussian+poisson_subsampled_gaussian");
  EXPECT_NEAR(a.Epsilon(1e-5).value(), b.Epsilon(1e-5).value(), 1e-9);
}

TEST(PldAccountantTest, RefusesSchedulesBeyondTheGridCap) {
  // nu = 0.01: one release alone spans ~1e4 in loss (1e7 bins at 1e-3).
  PldAccountant tiny_noise;
  ASSERT_TRUE(tiny_noise.Compose(1.0, 0.01, 10).ok());
  const auto eps = tiny_noise.Epsilon(1e-5);
  ASSERT_FALSE(eps.ok());
  EXPECT_EQ(eps.error().code(), StatusCode::kOutOfRange);
  // 10^6 rounds of nu = 1: the composed window is far beyond the cap.
  PldAccountant many;
  ASSERT_TRUE(many.Compose(1.0, 1.0, 1000000).ok());
  EXPECT_EQ(many.Epsilon(1e-5).error().code(), StatusCode::kOutOfRange);
}

TEST(PldAccountantTest, MonotoneInRoundsAndNoise) {
  double previous = 0.0;
  for (uint64_t t : {1u, 10u, 100u, 1000u}) {
    PldAccountant accountant;
    ASSERT_TRUE(accountant.Compose(0.01, 1.0, t).ok());
    const double eps = accountant.Epsilon(1e-5).value();
    EXPECT_GT(eps, previous) << t;
    previous = eps;
  }
  PldAccountant low, high;
  ASSERT_TRUE(low.Compose(0.01, 1.0, 100).ok());
  ASSERT_TRUE(high.Compose(0.01, 2.0, 100).ok());
  EXPECT_LT(high.Epsilon(1e-5).value(), low.Epsilon(1e-5).value());
}

}  // namespace
}  // namespace edgeadmm::privacy
