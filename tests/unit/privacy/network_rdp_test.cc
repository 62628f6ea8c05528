// Paper 002 Thm 4 (network RDP of Alg. 4) per visit, in clipped units,
// against an independent computation: mpmath (30 digits) summing the lag
// series Σ_m (1/n)(1 − 1/n)^(m−1)·ε_loc/m term by term up to m = 60n + 200
// (tail below e^−60; not the closed form ln n, and not mpmath's nsum, whose
// extrapolation is off by 5e−8 at n = 1000) times (1 + c),
// c = (α − 1)·8α/(σ/C)²; and the corrected condition
// σ ≥ 2√2·C·√(α(α−1)) dropping orders (+inf).
#include "edgeadmm/privacy/network_rdp.h"

#include <gtest/gtest.h>

#include <cmath>

#include "edgeadmm/privacy/paper_accountants.h"
#include "edgeadmm/privacy/rdp_orders.h"

namespace edgeadmm::privacy {
namespace {

TEST(NetworkRdpTest, MatchesTheLagSeriesComputedWithMpmath) {
  struct Case {
    double alpha, sigma_over_clip;
    int64_t n;
    double expected;
  };
  // mpmath: (1+c)*(1/n)*fsum(x**(m-1)/m for m in range(1, 60n+200))*8a/s²,
  // x = 1 − 1/n, mp.dps = 30.
  const Case cases[] = {
      {2, 10, 50, 0.0148177850981115083363191866579},
      {4, 10, 50, 0.0500738944694802695503200100853},
      {1.5, 3, 7, 0.72070746261307900189087138646},
      {3, 20, 1000, 0.0004646658205681677776757028},
  };
  for (const Case& c : cases) {
    EXPECT_NEAR(RandomWalkVisitRdp(c.alpha, c.sigma_over_clip, c.n), c.expected,
                1e-12 * c.expected)
        << c.alpha << " " << c.sigma_over_clip << " " << c.n;
  }
}

TEST(NetworkRdpTest, IsThePrintedTheorem4TimesOnePlusCAndNOverNMinusOne) {
  // Thm 4 as printed: 8α·ln n/((σ/C)²·n); ours is (1 + c)·n/(n − 1) times
  // it (the weak-convexity factor and the lag law the proof drops).
  const double s = 10, alpha = 2;
  const int64_t n = 50;
  // Clipped units: Lγ → C = 1 (paper_accountants.h's closed form).
  auto paper = Paper002NetworkRdp(alpha, 1, /*lipschitz=*/1, /*gamma=*/1, s,
                                  static_cast<uint64_t>(n));
  ASSERT_TRUE(paper.ok());
  EXPECT_TRUE(paper->corrected_condition_holds);
  const double printed = paper->rdp;
  EXPECT_NEAR(printed, 8 * alpha * std::log(50.0) / (100 * 50), 1e-15);
  const double c = (alpha - 1) * 8 * alpha / (s * s);
  EXPECT_NEAR(RandomWalkVisitRdp(alpha, s, n), printed * (1 + c) * 50.0 / 49.0,
              1e-15);
  EXPECT_GT(RandomWalkVisitRdp(alpha, s, n), printed);
}

TEST(NetworkRdpTest, TheCorrectedConditionDropsOrders) {
  // σ/C = 10: α(α − 1) ≤ 100/8 = 12.5, i.e. α ≤ 4.05 (α = 4 holds, 4.1 not).
  EXPECT_TRUE(NetworkConditionHolds(4.0, 10));
  EXPECT_FALSE(NetworkConditionHolds(4.1, 10));
  EXPECT_TRUE(std::isinf(RandomWalkVisitRdp(4.1, 10, 50)));
  // The printed condition σ > 2C√(α(α−1)) would admit α = 5 (2√20 ≈ 8.9 <
  // 10); the corrected one does not.
  EXPECT_LT(2 * std::sqrt(5.0 * 4.0), 10.0);
  EXPECT_FALSE(NetworkConditionHolds(5.0, 10));
  // Exactly at the boundary c = 1 the condition holds.
  const double alpha = 3;
  EXPECT_TRUE(NetworkConditionHolds(
      alpha,
      2 * std::sqrt(2.0) * std::sqrt(alpha * (alpha - 1)) * (1 + 1e-12)));
  const std::vector<double>& orders = OrderGrid::Default().orders();
  const std::vector<double> curve = RandomWalkVisitCurve(orders, 10, 50);
  ASSERT_EQ(curve.size(), orders.size());
  size_t finite = 0;
  for (size_t i = 0; i < orders.size(); ++i) {
    EXPECT_EQ(std::isfinite(curve[i]), orders[i] <= 4.05) << orders[i];
    finite += std::isfinite(curve[i]) ? 1 : 0;
  }
  EXPECT_EQ(finite, 30u);  // 1.1 .. 4.0
  // No observer, no noise: not claimed.
  EXPECT_TRUE(std::isinf(RandomWalkVisitRdp(2, 10, 1)));
  EXPECT_TRUE(std::isinf(RandomWalkVisitRdp(2, 0, 50)));
}

}  // namespace
}  // namespace edgeadmm::privacy
