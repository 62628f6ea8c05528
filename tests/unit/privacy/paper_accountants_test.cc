#include "edgeadmm/privacy/paper_accountants.h"

#include <cmath>

#include "gtest/gtest.h"

namespace edgeadmm::privacy {
namespace {

TEST(PaperAccountantsTest, Paper004MomentsAccountantReproducesThePaper) {
  const auto a = Paper004MomentsAccountant(0.05, 1e-3, 100);
  EXPECT_NEAR(a->epsilon, 0.5009, 5e-5);
  EXPECT_EQ(a->tau, 28);
  const auto b = Paper004MomentsAccountant(0.1, 1e-3, 100);
  EXPECT_NEAR(b->epsilon, 1.0193, 5e-5);
  EXPECT_EQ(b->tau, 14);
}

TEST(PaperAccountantsTest, Paper004FullTableFromTheDigest) {
  const double eps[] = {0.01, 0.02, 0.05, 0.07, 0.1, 0.2};
  const double deltas[] = {1e-3, 1e-4, 1e-5, 1e-6};
  const double table[6][4] = {
      {0.0988, 0.0991, 0.0993, 0.0994}, {0.1982, 0.1987, 0.1989, 0.1991},
      {0.5009, 0.5007, 0.5006, 0.5005}, {0.7061, 0.7047, 0.7038, 0.7031},
      {1.0193, 1.0148, 1.0118, 1.0098}, {2.1087, 2.0834, 2.0671, 2.0553}};
  for (int i = 0; i < 6; ++i) {
    for (int j = 0; j < 4; ++j) {
      EXPECT_NEAR(Paper004MomentsAccountant(eps[i], deltas[j], 100)->epsilon,
                  table[i][j], 5e-5)
          << "eps=" << eps[i] << " delta=" << deltas[j];
    }
  }
}

TEST(PaperAccountantsTest, Paper000AdvancedCompositionTestVectors) {
  struct V {
    double eps;
    uint64_t t;
    double expected;
    double tolerance;
  };
  for (const V& v : {V{0.1, 10, 1.6226, 5e-5}, V{0.1, 20, 2.3563, 5e-5},
                     V{0.1, 50, 3.9189, 5e-5}, V{0.05, 10, 0.7843, 5e-5},
                     V{0.05, 20, 1.1243, 5e-5}, V{0.5, 20, 17.217, 5e-4},
                     V{1.0, 20, 55.825, 5e-4}}) {
    EXPECT_NEAR(Paper000AdvancedComposition(v.eps, v.t, 1e-5).value(),
                v.expected, v.tolerance)
        << "eps=" << v.eps << " T=" << v.t;
  }
}

TEST(PaperAccountantsTest, Paper000PlanSolvesForTheStepEpsilon) {
  const auto plan = Paper000PlanStepEpsilon(2.0, 1e-5, 20);
  ASSERT_TRUE(plan.ok()) << plan.error().ToString();
  EXPECT_NEAR(Paper000AdvancedComposition(plan->step_epsilon, 20, 5e-6).value(),
              2.0, 1e-9);
  EXPECT_DOUBLE_EQ(plan->step_delta, 1e-5 / 40);
  EXPECT_NEAR(
      plan->noise_over_c,
      std::sqrt(2 * std::log(1.25 / plan->step_delta)) / plan->step_epsilon,
      1e-12);
  EXPECT_EQ(Paper000PlanStepEpsilon(1000.0, 1e-5, 2).error().code(),
            StatusCode::kOutOfRange);
}

TEST(PaperAccountantsTest, Paper001PureDpTestVectors) {
  const Paper001Node node{0.25, 1.0, 2.0, 9044.0};
  struct V {
    double q1, q2;
    double expected[4];
  };
  const uint64_t ts[] = {10, 50, 100, 500};
  for (const V& v : {V{1.0, 1.0, {0.003704, 0.018521, 0.037041, 0.185206}},
                     V{1.05, 1.0, {0.003003, 0.007100, 0.007719, 0.007779}},
                     V{1.1, 1.05, {0.002976, 0.007007, 0.007654, 0.007723}}}) {
    for (int i = 0; i < 4; ++i) {
      const double closed =
          Paper001PureDpGeometric(node, 0.5, v.q1, 3.0, v.q2, ts[i]).value();
      EXPECT_NEAR(closed, v.expected[i], 5e-7)
          << v.q1 << " " << v.q2 << " " << ts[i];
      std::vector<double> eta, alpha;
      for (uint64_t t = 0; t < ts[i]; ++t) {
        eta.push_back(0.5 * std::pow(v.q1, double(t)));
        alpha.push_back(3.0 * std::pow(v.q2, double(t)));
      }
      EXPECT_NEAR(Paper001PureDpSum(node, eta, alpha).value(), closed, 1e-12);
    }
  }
  EXPECT_FALSE(Paper001PureDpSum(node, {1.0}, {}).ok());
}

TEST(PaperAccountantsTest, Paper002Theorem4ClosedFormAndConditions) {
  // 8 alpha K L^2 gamma^2 ln(n) / (sigma^2 n) = 8*2*10*ln(100)/(100*100).
  const auto r = Paper002NetworkRdp(2.0, 10, 1.0, 1.0, 10.0, 100);
  ASSERT_TRUE(r.ok());
  EXPECT_NEAR(r->rdp, 160.0 * std::log(100.0) / 1e4, 1e-15);
  EXPECT_TRUE(r->printed_condition_holds);
  EXPECT_TRUE(r->corrected_condition_holds);
  // sigma = 3: above 2 sqrt(2) = 2.83 (printed) but below 4 (corrected).
  const auto s = Paper002NetworkRdp(2.0, 1, 1.0, 1.0, 3.0, 100);
  EXPECT_TRUE(s->printed_condition_holds);
  EXPECT_FALSE(s->corrected_condition_holds);
  EXPECT_FALSE(Paper002NetworkRdp(1.0, 1, 1.0, 1.0, 3.0, 100).ok());
  EXPECT_FALSE(Paper002NetworkRdp(2.0, 1, 1.0, 1.0, 3.0, 1).ok());
}

TEST(PaperAccountantsTest, RefuseBadInput) {
  EXPECT_EQ(Paper004MomentsAccountant(0.1, 0.0, 100).error().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(Paper004MomentsAccountant(-0.1, 1e-3, 100).error().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(Paper004MomentsAccountant(0.1, 1e-3, 0).error().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(Paper000AdvancedComposition(NAN, 10, 1e-5).error().code(),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace edgeadmm::privacy
