#include "edgeadmm/clip.h"

#include <cmath>
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

}  // namespace
}  // namespace edgeadmm
