#include "edgeadmm/privacy/rdp_filter.h"

#include <cmath>
#include <vector>

#include "edgeadmm/privacy/conversion.h"
#include "edgeadmm/privacy/rdp_orders.h"
#include "gtest/gtest.h"

namespace edgeadmm::privacy {
namespace {

const std::vector<double>& Orders() { return OrderGrid::Default().orders(); }

// k Gaussian rounds of noise multiplier z: k·α/(2z²) at every order.
std::vector<double> Gaussian(double z, int k) {
  std::vector<double> curve;
  for (double a : Orders()) curve.push_back(k * a / (2 * z * z));
  return curve;
}

// The filter's order affords the most Gaussian rounds (largest B(α)/α),
// found here by brute force over the grid; Spent at the budget is ε.
TEST(RdpFilterTest, OrderAffordsTheMostGaussianRoundsAndSpentInvertsB) {
  for (const double epsilon : {0.5, 1.0, 4.0, 16.0}) {
    for (const double delta : {1e-5, 1e-9}) {
      auto filter = RdpFilter::Create(Orders(), epsilon, delta);
      ASSERT_TRUE(filter.ok());
      double best = 0, best_order = 0;
      for (double a : Orders()) {
        const double b = epsilon - std::log1p(-1 / a) +
                         (std::log(delta) + std::log(a)) / (a - 1);
        if (b / a > best) best = b / a, best_order = a;
      }
      EXPECT_EQ(filter->order(), best_order) << epsilon << " " << delta;
      std::vector<double> at_budget(Orders().size(), 0.0);
      at_budget[filter->order_index()] = filter->budget();
      EXPECT_NEAR(filter->Spent(at_budget), epsilon, 1e-12);
      EXPECT_TRUE(filter->Admits(at_budget));
      at_budget[filter->order_index()] = std::nextafter(filter->budget(), 1e9);
      EXPECT_FALSE(filter->Admits(at_budget));
    }
  }
}

// Whatever the filter admits converts (at any order, minimised) to at most
// ε: the filter never admits more than the realized-value check would, and
// it stops Gaussian rounds within one round of the realized limit here.
TEST(RdpFilterTest, AdmittedCurvesConvertToAtMostEpsilon) {
  const double epsilon = 2.0, delta = 1e-5, z = 5.0;
  auto filter = RdpFilter::Create(Orders(), epsilon, delta);
  ASSERT_TRUE(filter.ok());
  int admitted = 0;
  while (filter->Admits(Gaussian(z, admitted + 1))) ++admitted;
  ASSERT_GT(admitted, 0);
  const auto converted = [&](int k) {
    auto curve = RdpCurve::FromValues(OrderGrid::Default(), Gaussian(z, k));
    return EpsilonFromRdp(*curve, delta, Conversion::kImproved)->epsilon;
  };
  EXPECT_LE(converted(admitted), epsilon);
  EXPECT_LE(filter->Spent(Gaussian(z, admitted)), epsilon);
  EXPECT_GT(converted(admitted + 2), epsilon);
}

TEST(RdpFilterTest, RefusesBadBudgetsAndAdmitsNothingBelowTheGridsReach) {
  EXPECT_FALSE(RdpFilter::Create(Orders(), 0.0, 1e-5).ok());
  EXPECT_FALSE(RdpFilter::Create(Orders(), INFINITY, 1e-5).ok());
  EXPECT_FALSE(RdpFilter::Create(Orders(), 1.0, 1.0).ok());
  EXPECT_FALSE(RdpFilter::Create({}, 1.0, 1e-5).ok());
  // ε = 1e-6 at δ = 1e-5: every order's budget is negative.
  auto tiny = RdpFilter::Create(Orders(), 1e-6, 1e-5);
  ASSERT_TRUE(tiny.ok());
  EXPECT_FALSE(tiny->Admits(std::vector<double>(Orders().size(), 0.0)));
}

}  // namespace
}  // namespace edgeadmm::privacy
