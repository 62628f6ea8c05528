#include "edgeadmm/clip.h"

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>

#include "gtest/gtest.h"

namespace edgeadmm {
namespace {

// A few roundings in the compute type (1e-15 in double as before).
constexpr double kTol =
    std::numeric_limits<Real>::epsilon() > 1e-15 ? 8e-7 : 1e-15;

Real Norm(const Real* v, size_t n) {
  Real sum = 0;
  for (size_t i = 0; i < n; ++i) sum += v[i] * v[i];
  return std::sqrt(sum);
}

TEST(ClipTest, InsideTheBallIsUnchanged) {
  Real v[] = {0.3, -0.4};
  EXPECT_DOUBLE_EQ(ClipL2(v, 1.0), 0.5);
  EXPECT_DOUBLE_EQ(v[0], 0.3);
  EXPECT_DOUBLE_EQ(v[1], -0.4);
}

TEST(ClipTest, OnTheBoundaryIsUnchanged) {
  Real v[] = {3.0, 4.0};
  EXPECT_DOUBLE_EQ(ClipL2(v, 5.0), 5.0);
  EXPECT_DOUBLE_EQ(v[0], 3.0);
  EXPECT_DOUBLE_EQ(v[1], 4.0);
}

TEST(ClipTest, OutsideIsScaledOntoTheSphereKeepingDirection) {
  Real v[] = {3.0, -4.0, 0.0};
  EXPECT_DOUBLE_EQ(ClipL2(v, 2.0), 5.0);
  EXPECT_NEAR(Norm(v, 3), 2.0, kTol);
  EXPECT_NEAR(v[0], 1.2, kTol);
  EXPECT_NEAR(v[1], -1.6, kTol);
  EXPECT_DOUBLE_EQ(v[2], 0.0);
}

TEST(ClipTest, ZeroVectorStaysZero) {
  Real v[] = {0.0, 0.0, 0.0, 0.0};
  EXPECT_DOUBLE_EQ(ClipL2(v, 0.1), 0.0);
  for (Real x : v) EXPECT_EQ(x, 0.0);
}

TEST(ClipTest, HugeEntriesDoNotOverflow) {
  // Near the top of Real's range (3e200 in double, 3e36 in float).
  const Real big = std::numeric_limits<Real>::max() / Real{100};
  Real v[] = {3 * (big / 5), 4 * (big / 5)};
  EXPECT_NEAR(ClipL2(v, 1.0) / big, 1.0, kTol);
  EXPECT_NEAR(v[0], 0.6, kTol);
  EXPECT_NEAR(v[1], 0.8, kTol);
}

// ||v||₂ of the vector as stored, summed in long double (exact squares of a
// float; on the host 64-bit mantissa for a double).
long double TrueNorm(const Real* v, size_t n) {
  long double sum = 0;
  for (size_t i = 0; i < n; ++i) {
    sum += static_cast<long double>(v[i]) * static_cast<long double>(v[i]);
  }
  return std::sqrt(sum);
}

// The clip guard: vectors whose norm lies a few ulps above C (where c/‖v‖
// and the products round up), many directions and dimensions, C from tiny to
// large; the clipped vector's norm never exceeds C.
TEST(ClipTest, GuardKeepsTheRoundedNormWithinTheBound) {
  constexpr size_t kMaxN = 130;
  const Real eps = std::numeric_limits<Real>::epsilon();
  uint32_t state = 12345;
  const auto next = [&state]() {  // LCG in [-1, 1)
    state = state * 1664525u + 1013904223u;
    return static_cast<Real>(static_cast<int32_t>(state >> 8) - (1 << 23)) /
           static_cast<Real>(1 << 23);
  };
  int clipped = 0;
  for (const Real c :
       {Real{1}, ToReal(0.1), ToReal(3.7), ToReal(1e-3), ToReal(250.0)}) {
    for (size_t n : {size_t{1}, size_t{2}, size_t{7}, size_t{123}, kMaxN}) {
      for (int k = 0; k <= 16; ++k) {
        Real v[kMaxN];
        for (size_t i = 0; i < n; ++i) v[i] = next();
        // Scale to ‖v‖ = c·(1 + k·eps) (as computed), just above the bound.
        const Real norm = Norm(v, n);
        if (norm == 0) continue;
        const Real target = c * (1 + static_cast<Real>(k) * eps);
        for (size_t i = 0; i < n; ++i) v[i] *= target / norm;
        const Real before = ClipL2(Span<Real>(v, n), c);
        clipped += before > c;
        // Float: the guard checks in double, so the stored vector's true norm
        // is ≤ C. Double: the guard's norm is itself a double sum, exact to
        // about n ulps, so the true norm (long double) may exceed C by that.
        const long double slack =
            sizeof(Real) < sizeof(double)
                ? 0.0L
                : static_cast<long double>(n + 2) *
                      std::numeric_limits<double>::epsilon();
        EXPECT_LE(TrueNorm(v, n), static_cast<long double>(c) * (1 + slack))
            << "c " << static_cast<double>(c) << " n " << n << " k " << k;
      }
    }
  }
  EXPECT_GT(clipped, 0);
}

}  // namespace
}  // namespace edgeadmm
