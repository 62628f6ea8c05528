// The gateway's grid for a noised sum (sum_grid.h): rounding in grid steps,
// the refusals, the charged multiplier by hand, and a neighbouring pair of
// sums whose rounded points are ≈ Δ/g + √p apart: the half-step charge of a
// device's own vector (g·√p/2) would not cover a rounded sum.
#include "edgeadmm/algorithms/sum_grid.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace edgeadmm::algorithms {
namespace {

TEST(SumGridTest, RoundsToTheNearestGridStep) {
  // s = 2: g = 2/2^15; ties away from zero.
  ASSERT_EQ(kSumGridBits, 15u);
  std::vector<double> v = {1.0, -3.0 / 32768, 2.5 / 32768, 0.0, 5.0 / 32768};
  ASSERT_EQ(RoundSumToGrid(2.0, v), Status::Ok());
  EXPECT_EQ(v, (std::vector<double>{16384, -2, 1, 0, 3}));
  v = {1.0};
  EXPECT_EQ(RoundSumToGrid(0.0, v).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RoundSumToGrid(INFINITY, v).code(), StatusCode::kInvalidArgument);
  v = {INFINITY};
  EXPECT_EQ(RoundSumToGrid(1.0, v).code(), StatusCode::kInvalidArgument);
  v = {0x1p37};  // 2^52 steps
  EXPECT_EQ(RoundSumToGrid(1.0, v).code(), StatusCode::kOutOfRange);
}

TEST(SumGridTest, MultiplierByHand) {
  // ν = 1.5, p = 123: 1.5·√(1 − 16/2^30)/(1 + 1.5·√123/32768) =
  // 1.5·(1 − 7.45e-9)/1.000508... ≈ 1.499239.
  const double expected =
      1.5 * std::sqrt(1 - 16 / 0x1p30) / (1 + 1.5 * std::sqrt(123.0) / 32768);
  const double nu = SumGridNoiseMultiplier(1.5, 123);
  EXPECT_LE(nu, expected);
  EXPECT_NEAR(nu, expected, 1e-15);
  // The bridge to the continuous Gaussian is charged: without it the
  // multiplier would be 1.1e-8 higher.
  EXPECT_LT(nu, 1.5 / (1 + 1.5 * std::sqrt(123.0) / 32768) - 1e-8);
  EXPECT_NEAR(nu, 1.499239, 1e-6);
  // The a9a dp-ftrl run's ν = 107 (σ = 535, C = 5): 3.6% below ν.
  EXPECT_NEAR(SumGridNoiseMultiplier(107, 123), 107 / 1.0362, 0.01);
  EXPECT_EQ(SumGridNoiseMultiplier(0.0, 123), 0.0);
}

TEST(SumGridTest, NeighbouringSumsRoundAlmostAFullStepApartPerCoordinate) {
  // s = 2^15: g = 1. S_i = 1.5 rounds to 2; S'_i = S_i − u_i with
  // u_i = 1.01 is 0.49, rounding to 0: |Δr_i| = 2 = u_i + 0.99.
  constexpr size_t kP = 100;
  std::vector<double> s(kP, 1.5), s_prime(kP, 1.5 - 1.01);
  ASSERT_EQ(RoundSumToGrid(32768, s), Status::Ok());
  ASSERT_EQ(RoundSumToGrid(32768, s_prime), Status::Ok());
  double moved2 = 0;
  for (size_t i = 0; i < kP; ++i)
    moved2 += (s[i] - s_prime[i]) * (s[i] - s_prime[i]);
  const double moved = std::sqrt(moved2);               // 2·√p = 20
  const double delta = 1.01 * std::sqrt(double(kP));    // ‖u‖/g = 10.1
  EXPECT_GT(moved, delta + std::sqrt(double(kP)) / 2);  // half step: broken
  EXPECT_LE(moved, delta + std::sqrt(double(kP)));      // the charged bound
}

}  // namespace
}  // namespace edgeadmm::algorithms
