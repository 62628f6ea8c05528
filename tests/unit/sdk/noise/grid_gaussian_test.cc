// Grid Gaussian noise (grid_gaussian.h): the charged sensitivity and noise
// multiplier by hand, the rounding bound on adversarial vectors at and just
// past ‖v‖ = B (the guard, and that without it the bound fails), argument
// checks, and golden released values for a fixed seed that must be the
// same on the host and on the Cortex-M4F under QEMU (integer sampling,
// dyadic inputs: identical bytes in double and in float32). Portable
// (static arrays only); the distribution is in grid_gaussian_host_test.cc.
#include "edgeadmm/grid_gaussian.h"

#include <cmath>
#include <cstdint>
#include <limits>

#include "gtest/gtest.h"
#include "seeded_sampler.h"

namespace edgeadmm {
namespace {

constexpr double kG = 1.0 / 1024;  // grid step for noise std 1

TEST(GridGaussianTest, SensitivityAndMultiplierByHand) {
  static_assert(kNoiseGridBits == 10, "the hand values below use g = s/1024");
  // B = 1, s = 2, p = 100: g = 2/1024, g·√p/2 = 10/1024 = 0.009765625.
  const double sens = GridSensitivity(1.0, 2.0, 100);
  EXPECT_GE(sens, 1.009765625);
  EXPECT_LE(sens, 1.009765625 * (1 + 1e-15));
  // ν = 2: 2/(1 + 2·10/2048) = 2/1.009765625.
  const double nu = GridNoiseMultiplier(2.0, 100);
  EXPECT_LE(nu, 2 / 1.009765625);
  EXPECT_GE(nu, 2 / 1.009765625 * (1 - 1e-15));
  EXPECT_NEAR(nu, 2.0 / sens, 1e-14);
  // σ = 0: no grid, no inflation; ν = 0 stays 0.
  EXPECT_EQ(GridSensitivity(0.5, 0.0, 123), 0.5);
  EXPECT_EQ(GridNoiseMultiplier(0.0, 123), 0.0);
  // The reference job (p = 123) at ν = 1: 0.54% less.
  EXPECT_NEAR(1 - GridNoiseMultiplier(1.0, 123), 0.005386, 1e-5);
}

double NormOf(const int32_t* r, size_t n) {
  double sum = 0;
  for (size_t i = 0; i < n; ++i) sum += double(r[i]) * double(r[i]);
  return std::sqrt(sum);
}

// Worst case of nearest rounding: every coordinate half a step past the
// grid, so each rounds up by 1/2 and ‖r‖ = B/g + √p/2 exactly (p = 64,
// v_i = 127.5·g, ‖v‖ = 8·127.5·g = 1020/1024 ≤ B = 1020/1024).
TEST(GridGaussianTest, HalfStepVectorsReachTheChargedBound) {
  constexpr size_t kP = 64;
  static Real v[kP];
  static int32_t r[kP];
  for (size_t i = 0; i < kP; ++i) v[i] = Real(127.5 * kG);
  const Real bound = Real(1020 * kG);
  ASSERT_TRUE(RoundToGrid(bound, 1, v, r).ok());
  for (size_t i = 0; i < kP; ++i) EXPECT_EQ(r[i], 128);
  // ‖r‖ = 1024 = 1020 + √64/2: the √p/2 of the charge is attained.
  EXPECT_EQ(NormOf(r, kP), 1024.0);
  EXPECT_LE(NormOf(r, kP) * kG, GridSensitivity(bound, 1, kP));
  // The unrounded bound alone would be exceeded.
  EXPECT_GT(NormOf(r, kP) * kG, double(bound));
}

// Vectors past the bound (as float32 or a buggy clip could leave them):
// the guard brings Σ r_i² under K, so g·‖r‖ ≤ GridSensitivity; with no
// guard (bound = +inf) the same vectors exceed it.
TEST(GridGaussianTest, GuardHoldsTheBoundForVectorsPastIt) {
  constexpr size_t kP = 16;
  static Real v[kP];
  static int32_t r[kP];
  const Real bound = 1;
  const double factors[] = {1 + 1e-6, 1.001, 1.5, 3};
  for (double factor : factors) {
    SCOPED_TRACE(factor);
    // Coordinates of unequal size at half steps, norm factor·B.
    double norm2 = 0;
    for (size_t i = 0; i < kP; ++i) {
      v[i] = Real((37 + 11 * double(i)) + 0.5);
      norm2 += double(v[i]) * double(v[i]);
    }
    const double scale = factor / std::sqrt(norm2);
    for (size_t i = 0; i < kP; ++i) v[i] = Real(double(v[i]) * scale);
    ASSERT_TRUE(RoundToGrid(bound, 1, v, r).ok());
    EXPECT_LE(NormOf(r, kP) * kG, GridSensitivity(bound, 1, kP));
    ASSERT_TRUE(
        RoundToGrid(std::numeric_limits<Real>::infinity(), 1, v, r).ok());
    if (factor > 1.01) {
      EXPECT_GT(NormOf(r, kP) * kG, GridSensitivity(bound, 1, kP));
    }
  }
}

TEST(GridGaussianTest, RefusesBadArguments) {
  SeededDiscreteSampler seeded(1);
  static Real v[4] = {0.1, 0.2, 0.3, 0.4};
  static int32_t r[4];
  EXPECT_EQ(AddGridNoise(seeded.sampler(), 1, 0, v), Status::InvalidArgument());
  EXPECT_EQ(AddGridNoise(seeded.sampler(), 0, 1, v), Status::InvalidArgument());
  EXPECT_EQ(RoundToGrid(1, 1, v, Span<int32_t>(r, 3)),
            Status::InvalidArgument());
  v[2] = std::numeric_limits<Real>::quiet_NaN();
  EXPECT_EQ(RoundToGrid(1, 1, v, r), Status::InvalidArgument());
  v[2] = Real(0.3);
  // bound/g = 2^30: ν = 2^-20 is below the range.
  EXPECT_EQ(RoundToGrid(1, Real(0x1p-20), v, r), Status::OutOfRange());
  EXPECT_TRUE(RoundToGrid(1, Real(0x1p-19), v, r).ok());
}

// Same seed, same released values on every target: noise std 0.5 (grid
// 2^-11), dyadic inputs, so n = released·2^11 is an integer below 2^24 and
// each released value is exact in float32 and in double.
TEST(GridGaussianTest, GoldenReleaseForAFixedSeed) {
  SeededDiscreteSampler seeded(20261129);
  static Real v[8] = {0.25, -0.5, 0.125, 0, 0.0625, -0.03125, 0.5, -0.25};
  static const int64_t kGolden[8] = {-162, -796, -113, 1127,
                                     824,  -157, 30,   1546};
  ASSERT_TRUE(AddGridNoise(seeded.sampler(), 1, Real(0.5), v).ok());
  for (int i = 0; i < 8; ++i) {
    SCOPED_TRACE(i);
    const double n = double(v[i]) * 2048;
    EXPECT_EQ(n, std::round(n));  // on the grid
    EXPECT_EQ(static_cast<int64_t>(n), kGolden[i]) << "n = " << n;
  }
}

}  // namespace
}  // namespace edgeadmm
