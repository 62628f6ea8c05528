#include "edgeadmm/privacy/composition.h"

#include <cmath>

#include "gtest/gtest.h"

namespace edgeadmm::privacy {
namespace {

Mechanism Poisson(double q, double z) {
  Mechanism m;
  m.kind = MechanismKind::kPoissonSubsampledGaussian;
  m.sampling_rate = q;
  m.noise_std = z;
  return m;
}

double Epsilon(const Mechanism& m, uint64_t rounds) {
  Accountant accountant;
  EXPECT_TRUE(accountant.Compose(m, rounds).ok());
  return accountant.Epsilon(1e-5, Conversion::kImproved)->epsilon;
}

TEST(CompositionTest, ComposingKTimesAddsKCurves) {
  const Mechanism m = Poisson(0.02, 1.1);
  Accountant once, many, incremental;
  ASSERT_TRUE(once.Compose(m).ok());
  ASSERT_TRUE(many.Compose(m, 250).ok());
  CurveCache cache;
  for (int i = 0; i < 250; ++i)
    ASSERT_TRUE(incremental.Compose(m, 1, &cache).ok());
  EXPECT_EQ(cache.size(), 1u);
  for (size_t i = 0; i < once.curve().size(); ++i) {
    EXPECT_NEAR(many.curve()[i], 250 * once.curve()[i],
                1e-12 * many.curve()[i]);
    EXPECT_NEAR(incremental.curve()[i], many.curve()[i],
                1e-9 * many.curve()[i]);
  }
  EXPECT_EQ(many.compositions(), 250u);
}

TEST(CompositionTest, HeterogeneousRoundsAddTheirOwnCurves) {
  Mechanism gaussian;
  gaussian.sensitivity = 2.0;
  gaussian.noise_std = 6.0;
  const Mechanism sampled = Poisson(0.1, 0.9);
  Accountant accountant;
  ASSERT_TRUE(accountant.Compose(gaussian, 3).ok());
  ASSERT_TRUE(accountant.Compose(sampled, 2).ok());
  const auto g = ComputeRdpCurve(gaussian, OrderGrid::Default());
  const auto s = ComputeRdpCurve(sampled, OrderGrid::Default());
  for (size_t i = 0; i < accountant.curve().size(); ++i) {
    EXPECT_NEAR(accountant.curve()[i], 3 * (*g)[i] + 2 * (*s)[i],
                1e-12 * accountant.curve()[i]);
  }
  const auto report = accountant.Epsilon(1e-6, Conversion::kClassic);
  EXPECT_EQ(report->mechanism, "gaussian+poisson_subsampled_gaussian");
  EXPECT_EQ(report->neighbouring, "add/remove");
  EXPECT_EQ(report->compositions, 5u);
  EXPECT_EQ(report->conversion, Conversion::kClassic);
  EXPECT_GT(report->order, 1.0);
}

TEST(CompositionTest, EpsilonGrowsWithRoundsAndRateAndFallsWithNoise) {
  double previous = 0.0;
  for (uint64_t rounds : {1, 10, 100, 1000, 10000}) {
    const double eps = Epsilon(Poisson(0.01, 1.0), rounds);
    EXPECT_GT(eps, previous) << rounds;
    previous = eps;
  }
  previous = 0.0;
  for (double q : {0.001, 0.01, 0.1, 1.0}) {
    const double eps = Epsilon(Poisson(q, 1.0), 100);
    EXPECT_GT(eps, previous) << q;
    previous = eps;
  }
  previous = INFINITY;
  for (double z : {0.6, 1.0, 2.0, 8.0}) {
    const double eps = Epsilon(Poisson(0.05, z), 100);
    EXPECT_LT(eps, previous) << z;
    previous = eps;
  }
}

TEST(CompositionTest, MatchesOpacusDocumentedExample) {
  // opacus.ai/api/compute_dp_sgd_privacy.html: sample rate 1%, noise
  // multiplier 1.0, 300 steps, alphas {2, 5, 10, 20, 100}, delta 1e-5 ->
  // "epsilon = 2.39 ... The optimal alpha is 5.0" (Opacus uses the improved
  // conversion).
  Accountant accountant(OrderGrid::Create({2, 5, 10, 20, 100}).value());
  ASSERT_TRUE(accountant.Compose(Poisson(0.01, 1.0), 300).ok());
  const auto report = accountant.Epsilon(1e-5, Conversion::kImproved);
  EXPECT_NEAR(report->epsilon, 2.39, 0.005);
  EXPECT_EQ(report->order, 5.0);
}

TEST(CompositionTest, NothingComposedIsZeroEpsilon) {
  Accountant accountant;
  const auto report = accountant.Epsilon(1e-5, Conversion::kImproved);
  EXPECT_EQ(report->epsilon, 0.0);
  EXPECT_EQ(report->mechanism, "none");
}

TEST(CompositionTest, RefusesMismatchedGridsAndBadMechanisms) {
  Accountant accountant;
  CurveCache other(OrderGrid::Create({2.0, 4.0}).value());
  Mechanism m;
  EXPECT_EQ(accountant.Compose(m, 1, &other).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(accountant.Compose(Poisson(0.0, 1.0)).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(accountant.Compose(Poisson(0.1, -1.0)).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(accountant.compositions(), 0u);
  EXPECT_FALSE(OrderGrid::Create({2.0, 1.5}).ok());
  EXPECT_FALSE(OrderGrid::Create({1.0}).ok());
  EXPECT_FALSE(OrderGrid::Create({}).ok());
  EXPECT_EQ(OrderGrid::Default().size(), 156u);
}

}  // namespace
}  // namespace edgeadmm::privacy
