#include "edgeadmm/privacy/conversion.h"

#include <cmath>

#include "edgeadmm/privacy/composition.h"
#include "gtest/gtest.h"

namespace edgeadmm::privacy {
namespace {

RdpCurve GaussianCurve(double z, uint64_t rounds) {
  Accountant accountant;
  Mechanism m;
  m.noise_std = z;
  EXPECT_TRUE(accountant.Compose(m, rounds).ok());
  return accountant.curve();
}

TEST(ConversionTest, ClassicIsTheMinimumOverTheGrid) {
  const RdpCurve curve = GaussianCurve(2.0, 10);
  const double delta = 1e-5;
  double expected = INFINITY, order = 0;
  for (double a : OrderGrid::Default().orders()) {
    const double eps = 10.0 * a / 8.0 + std::log(1.0 / delta) / (a - 1.0);
    if (eps < expected) expected = eps, order = a;
  }
  const auto converted = EpsilonFromRdp(curve, delta, Conversion::kClassic);
  EXPECT_NEAR(converted->epsilon, expected, 1e-12);
  EXPECT_EQ(converted->order, order);
}

TEST(ConversionTest, ImprovedMatchesCanonneKamathSteinkeByHand) {
  const RdpCurve curve = GaussianCurve(2.0, 10);
  const double delta = 1e-5;
  double expected = INFINITY;
  for (double a : OrderGrid::Default().orders()) {
    const double eps = 10.0 * a / 8.0 + std::log((a - 1.0) / a) -
                       (std::log(delta) + std::log(a)) / (a - 1.0);
    expected = std::min(expected, eps);
  }
  EXPECT_NEAR(EpsilonFromRdp(curve, delta, Conversion::kImproved)->epsilon,
              expected, 1e-12);
}

TEST(ConversionTest, ClassicIsNeverBelowImproved) {
  for (double z : {0.5, 1.0, 3.0, 20.0}) {
    for (uint64_t rounds : {1, 10, 1000}) {
      const RdpCurve curve = GaussianCurve(z, rounds);
      for (double delta : {1e-3, 1e-5, 1e-9}) {
        const double classic =
            EpsilonFromRdp(curve, delta, Conversion::kClassic)->epsilon;
        const double improved =
            EpsilonFromRdp(curve, delta, Conversion::kImproved)->epsilon;
        EXPECT_GE(classic, improved);
        EXPECT_GT(improved, 0.0);
      }
    }
  }
}

TEST(ConversionTest, DeltaForEpsilonInvertsEpsilonForDelta) {
  const RdpCurve curve = GaussianCurve(1.5, 50);
  for (Conversion c : {Conversion::kClassic, Conversion::kImproved}) {
    const auto eps = EpsilonFromRdp(curve, 1e-6, c);
    const auto delta = DeltaFromRdp(curve, eps->epsilon, c);
    // At the same order the two are exact inverses; over the grid the delta
    // found can only be smaller.
    EXPECT_LE(delta->delta, 1e-6 * (1 + 1e-9));
    EXPECT_GT(delta->delta, 0.5e-6);
    // Larger epsilon, smaller delta.
    EXPECT_LT(DeltaFromRdp(curve, eps->epsilon + 1, c)->delta, delta->delta);
  }
  EXPECT_DOUBLE_EQ(DeltaFromRdp(curve, 0.0, Conversion::kClassic)->delta, 1.0);
}

TEST(ConversionTest, RefusesBadDeltaAndEpsilon) {
  const RdpCurve curve = GaussianCurve(1.0, 1);
  for (double delta : {0.0, 1.0, -1e-5, 2.0, double(NAN)}) {
    const auto r = EpsilonFromRdp(curve, delta, Conversion::kImproved);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(r.error().message().find("delta"), std::string::npos);
  }
  EXPECT_FALSE(DeltaFromRdp(curve, -1.0, Conversion::kClassic).ok());
  EXPECT_FALSE(DeltaFromRdp(curve, NAN, Conversion::kClassic).ok());
  EXPECT_EQ(ParseConversion("tight").error().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseConversion("classic").value(), Conversion::kClassic);
}

}  // namespace
}  // namespace edgeadmm::privacy
