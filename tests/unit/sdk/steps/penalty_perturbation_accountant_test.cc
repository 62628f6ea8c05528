// Paper 001's accountant: the issue 16 test vectors (digest 001, B4), the
// per-iteration sum against the geometric closed form, DVP as η ≡ θ, the θ
// condition, the network max and the error paths. Portable.
#include "edgeadmm/penalty_perturbation_accountant.h"

#include <cmath>
#include <limits>

#include "gtest/gtest.h"

namespace edgeadmm {
namespace {

PpNodeConstants Node(double c, double c1, uint32_t v, uint64_t b) {
  PpNodeConstants n;
  n.loss_weight = c;
  n.curvature_bound = c1;
  n.degree = v;
  n.samples = b;
  return n;
}

// Digest 001, B4: c₁ = 0.25, C = 1, V = 2, B = 9044.
PpNodeConstants DigestNode() { return Node(1, 0.25, 2, 9044); }

struct VectorRow {
  double q1, q2;
  double expected[4];  // T = 10, 50, 100, 500; six decimals
};
constexpr uint32_t kHorizons[4] = {10, 50, 100, 500};
constexpr VectorRow kRows[] = {
    {1.0, 1.0, {0.003704, 0.018521, 0.037041, 0.185206}},
    {1.05, 1.0, {0.003003, 0.007100, 0.007719, 0.007779}},
    {1.1, 1.05, {0.002976, 0.007007, 0.007654, 0.007723}},
};
constexpr double kEta1 = 0.5, kAlpha1 = 3;
// The vectors are rounded to six decimals.
constexpr double kRounding = 5.0e-7 + 1e-12;

// The step schedule of the digest's node (C = 1, V = 2; ρ = 1, N = 3 and
// θ = 0.5 only enter the θ condition), uncapped: η = 0.5·q₁^{t−1},
// α = 3·q₂^{t−1}.
PenaltyPerturbationParams DigestParams(double q1, double q2) {
  PenaltyPerturbationParams p;
  p.loss_weight = 1;
  p.reg_weight = 1;
  p.nodes = 3;
  p.degree = 2;
  p.theta = 0.5;
  p.eta1 = kEta1;
  p.eta_growth = q1;
  p.eta_max = 1e300;  // no cap: the closed form has none
  p.alpha1 = kAlpha1;
  p.alpha_growth = q2;
  return p;
}

TEST(PpAccountantTest, ClosedFormMatchesTheIssueVectors) {
  for (const VectorRow& row : kRows) {
    for (int h = 0; h < 4; ++h) {
      const Result<double> p = PpGeometricLoss(DigestNode(), kEta1, row.q1,
                                               kAlpha1, row.q2, kHorizons[h]);
      ASSERT_TRUE(p.ok());
      EXPECT_NEAR(*p, row.expected[h], kRounding)
          << "q1=" << row.q1 << " q2=" << row.q2 << " T=" << kHorizons[h];
    }
  }
}

// Charging the step schedule iteration by iteration gives the vectors too,
// and agrees with the closed form to rounding error at every T.
TEST(PpAccountantTest, ChargedScheduleMatchesVectorsAndClosedForm) {
  for (const VectorRow& row : kRows) {
    const PenaltyPerturbationParams params = DigestParams(row.q1, row.q2);
    PenaltyPerturbationAccountant acc;
    ASSERT_TRUE(acc.Init(params, 0.25, 9044).ok());
    int h = 0;
    for (uint32_t t = 1; t <= 500; ++t) {
      ASSERT_TRUE(acc.Charge(params, t).ok());
      const Result<double> closed =
          PpGeometricLoss(DigestNode(), kEta1, row.q1, kAlpha1, row.q2, t);
      ASSERT_TRUE(closed.ok());
      ASSERT_NEAR(acc.loss(), *closed, 1e-12 * *closed) << t;
      if (t == kHorizons[h]) {
        EXPECT_NEAR(acc.loss(), row.expected[h], kRounding) << t;
        ++h;
      }
    }
    EXPECT_EQ(h, 4);
    EXPECT_EQ(acc.iterations(), 500u);
  }
}

// DVP is the same code with η ≡ θ: with θ = η₁ = 0.5 it is the (1, 1) row
// whatever q₁ says, and the loss grows linearly in T.
TEST(PpAccountantTest, DvpModeIsConstantThetaAndLinearInT) {
  PenaltyPerturbationParams params = DigestParams(1.1, 1);  // q₁ ignored
  params.mode = PenaltyMode::kDualVariablePerturbation;
  EXPECT_EQ(params.Eta(1), 0.5);
  EXPECT_EQ(params.Eta(400), 0.5);
  PenaltyPerturbationAccountant acc;
  ASSERT_TRUE(acc.Init(params, 0.25, 9044).ok());
  int h = 0;
  for (uint32_t t = 1; t <= 500; ++t) {
    ASSERT_TRUE(acc.Charge(params, t).ok());
    if (t == kHorizons[h]) {
      EXPECT_NEAR(acc.loss(), kRows[0].expected[h], kRounding) << t;
      ++h;
    }
  }
  const double per_step = 1 * (1.4 * 0.25 + 3) / (0.5 * 2 * 9044);
  EXPECT_NEAR(acc.loss(), 500 * per_step, 1e-12);
  // PP with q₁ > 1, q₂ < q₁ stays bounded; DVP does not.
  const Result<double> pp =
      PpGeometricLoss(DigestNode(), 0.5, 1.05, 3, 1, 1u << 30);
  ASSERT_TRUE(pp.ok());
  EXPECT_NEAR(*pp, (1.0 / 9044) * (1.4 * 0.25 + 3) * 1.05 / 0.05, 1e-9);
  EXPECT_LT(*pp, acc.loss());
}

// A capped η (η_max) costs more than the uncapped closed form.
TEST(PpAccountantTest, EtaCapRaisesTheLoss) {
  PenaltyPerturbationParams params = DigestParams(1.1, 1);
  params.eta_max = 2;
  PenaltyPerturbationAccountant acc;
  ASSERT_TRUE(acc.Init(params, 0.25, 9044).ok());
  for (uint32_t t = 1; t <= 100; ++t) ASSERT_TRUE(acc.Charge(params, t).ok());
  const Result<double> closed =
      PpGeometricLoss(DigestNode(), 0.5, 1.1, 3, 1, 100);
  ASSERT_TRUE(closed.ok());
  EXPECT_GT(acc.loss(), *closed * 1.5);
}

TEST(PpAccountantTest, IterationCostIsTheFormula) {
  PpNodeConstants n = Node(3, 0.5, 4, 100);
  const Result<double> c = PpIterationCost(n, 2.0, 5.0);
  ASSERT_TRUE(c.ok());
  EXPECT_DOUBLE_EQ(*c, 3 * (1.4 * 0.5 + 5) / (2.0 * 4 * 100));
  // Each factor matters.
  n.degree = 1;
  EXPECT_DOUBLE_EQ(*PpIterationCost(n, 2.0, 5.0), 4 * *c);
}

TEST(PpAccountantTest, ThetaCondition) {
  // 2c₁ < (B/C)(ρ/N + 2θV).
  // c₁ = 0.25, B = C = 1, ρ = 1, N = 4, V = 1: rhs = 0.25 + 2θ; θ = 0.125
  // gives 0.5 = 2c₁, which fails (strict); θ slightly larger holds.
  EXPECT_EQ(CheckPpThetaCondition(0.25, 1, 1, 1, 4, 0.125, 1).code(),
            StatusCode::kFailedPrecondition);
  EXPECT_TRUE(CheckPpThetaCondition(0.25, 1, 1, 1, 4, 0.126, 1).ok());
  EXPECT_EQ(CheckPpThetaCondition(0.25, 1, 1, 1, 4, 0.124, 1).code(),
            StatusCode::kFailedPrecondition);
  // More samples or a larger degree help.
  EXPECT_TRUE(CheckPpThetaCondition(0.25, 1, 2, 1, 4, 0.124, 1).ok());
  EXPECT_TRUE(CheckPpThetaCondition(0.25, 1, 1, 1, 4, 0.124, 2).ok());
  // A larger C hurts.
  EXPECT_EQ(CheckPpThetaCondition(0.25, 2, 2, 1, 4, 0.124, 1).code(),
            StatusCode::kFailedPrecondition);
  // Digest pitfall 4: c₁ = ¼, C ≤ B, θ = ½, V ≥ 1 always holds.
  EXPECT_TRUE(CheckPpThetaCondition(0.25, 9044, 9044, 1e-9, 1000, 0.5, 1).ok());
  for (const double bad :
       {double{0}, double{-1}, double{NAN}, double{INFINITY}}) {
    EXPECT_EQ(CheckPpThetaCondition(bad, 1, 1, 1, 4, 0.5, 1).code(),
              StatusCode::kInvalidArgument);
    EXPECT_EQ(CheckPpThetaCondition(0.25, bad, 1, 1, 4, 0.5, 1).code(),
              StatusCode::kInvalidArgument);
    EXPECT_EQ(CheckPpThetaCondition(0.25, 1, 1, bad, 4, 0.5, 1).code(),
              StatusCode::kInvalidArgument);
    EXPECT_EQ(CheckPpThetaCondition(0.25, 1, 1, 1, 4, bad, 1).code(),
              StatusCode::kInvalidArgument);
  }
  EXPECT_EQ(CheckPpThetaCondition(0.25, 1, 0, 1, 4, 0.5, 1).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(CheckPpThetaCondition(0.25, 1, 1, 1, 0, 0.5, 1).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(CheckPpThetaCondition(0.25, 1, 1, 1, 4, 0.5, 0).code(),
            StatusCode::kInvalidArgument);
  // The step's Validate uses the same check.
  PenaltyPerturbationParams params = DigestParams(1, 1);
  params.nodes = 4;
  params.degree = 1;
  params.theta = 0.124;
  EXPECT_EQ(params.Validate(0.25, 1).code(), StatusCode::kFailedPrecondition);
  PenaltyPerturbationAccountant acc;
  EXPECT_EQ(acc.Init(params, 0.25, 1).code(), StatusCode::kFailedPrecondition);
  params.theta = 0.126;
  EXPECT_TRUE(params.Validate(0.25, 1).ok());
}

TEST(PpAccountantTest, NetworkLossIsTheMax) {
  const double losses[] = {0.1, 0.7, 0.3};
  EXPECT_EQ(*PpNetworkLoss(Span<const double>(losses, 3)), 0.7);
  EXPECT_FALSE(PpNetworkLoss(Span<const double>()).ok());
  const double bad[] = {0.1, NAN};
  EXPECT_FALSE(PpNetworkLoss(Span<const double>(bad, 2)).ok());
  const double neg[] = {0.1, -0.1};
  EXPECT_FALSE(PpNetworkLoss(Span<const double>(neg, 2)).ok());
  const double inf[] = {0.1, INFINITY};
  EXPECT_EQ(*PpNetworkLoss(Span<const double>(inf, 2)), INFINITY);
}

TEST(PpAccountantTest, ErrorsLeaveTheSumUnchanged) {
  PenaltyPerturbationAccountant acc;
  EXPECT_EQ(acc.Charge(1, 1).code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(acc.Restore(1, 1).code(), StatusCode::kFailedPrecondition);
  PpNodeConstants n = DigestNode();
  n.samples = 0;
  EXPECT_EQ(acc.Init(n).code(), StatusCode::kInvalidArgument);
  n = DigestNode();
  n.loss_weight = 9045;  // C > B
  EXPECT_EQ(acc.Init(n).code(), StatusCode::kInvalidArgument);
  ASSERT_TRUE(acc.Init(DigestNode()).ok());
  ASSERT_TRUE(acc.Charge(0.5, 3).ok());
  const double before = acc.loss();
  for (const double bad :
       {double{0}, double{-1}, double{NAN}, double{INFINITY}}) {
    EXPECT_EQ(acc.Charge(bad, 3).code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(acc.Charge(0.5, bad).code(), StatusCode::kInvalidArgument);
  }
  // A tiny η overflows the cost.
  EXPECT_EQ(acc.Charge(1e-320, 3).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(acc.loss(), before);
  EXPECT_EQ(acc.iterations(), 1u);
  PenaltyPerturbationParams params = DigestParams(1, 1);
  params.add_noise = false;
  EXPECT_EQ(acc.Charge(params, 1).code(), StatusCode::kFailedPrecondition);
  params.add_noise = true;
  EXPECT_EQ(acc.Charge(params, 0).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(acc.loss(), before);
  // Saturated counter.
  ASSERT_TRUE(acc.Restore(std::numeric_limits<uint32_t>::max(), 1.0).ok());
  EXPECT_EQ(acc.Charge(0.5, 3).code(), StatusCode::kOutOfRange);
  EXPECT_EQ(acc.loss(), 1.0);
}

TEST(PpAccountantTest, WouldExceedAndRestore) {
  PenaltyPerturbationAccountant acc;
  ASSERT_TRUE(acc.Init(DigestNode()).ok());
  const double step = *PpIterationCost(DigestNode(), 0.5, 3);
  EXPECT_FALSE(*acc.WouldExceed(0.5, 3, step));
  EXPECT_TRUE(*acc.WouldExceed(0.5, 3, step * 0.999));
  EXPECT_FALSE(*acc.WouldExceed(0.5, 3, INFINITY));
  EXPECT_FALSE(acc.WouldExceed(0.5, 3, -1).ok());
  EXPECT_FALSE(acc.WouldExceed(0.5, 3, NAN).ok());
  EXPECT_FALSE(acc.WouldExceed(0, 3, 1).ok());
  EXPECT_TRUE(acc.Restore(10, 0.25).ok());
  EXPECT_EQ(acc.iterations(), 10u);
  EXPECT_EQ(acc.loss(), 0.25);
  EXPECT_FALSE(acc.Restore(0, 0.25).ok());
  EXPECT_FALSE(acc.Restore(3, 0).ok());
  EXPECT_FALSE(acc.Restore(3, -1).ok());
  EXPECT_FALSE(acc.Restore(3, INFINITY).ok());
  EXPECT_EQ(acc.loss(), 0.25);
  EXPECT_TRUE(acc.Restore(0, 0).ok());
}

}  // namespace
}  // namespace edgeadmm
