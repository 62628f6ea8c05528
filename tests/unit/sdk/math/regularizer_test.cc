#include "edgeadmm/regularizer.h"

#include <cmath>
#include <initializer_list>

#include "gtest/gtest.h"

namespace edgeadmm {
namespace {

constexpr Real kMove = sizeof(Real) == 4 ? ToReal(3e-2) : ToReal(1e-3);

Regularizer Make(RegularizerKind kind, Real l1, Real l2) {
  Regularizer r;
  r.kind = kind;
  r.l1 = l1;
  r.l2 = l2;
  return r;
}

constexpr Real kV[] = {3.0, -0.2, 0.0, -5.0, 0.35, 1e-3, -0.4};
constexpr size_t kN = sizeof(kV) / sizeof(kV[0]);

TEST(RegularizerTest, Validate) {
  EXPECT_TRUE(Make(RegularizerKind::kNone, 0, 0).Validate().ok());
  EXPECT_TRUE(Make(RegularizerKind::kL2, 0, 0.5).Validate().ok());
  EXPECT_TRUE(Make(RegularizerKind::kL1, 0.5, 0).Validate().ok());
  EXPECT_TRUE(Make(RegularizerKind::kElasticNet, 0.5, 0.1).Validate().ok());
  const Status bad = Status::InvalidArgument();
  EXPECT_EQ(Make(RegularizerKind::kNone, 0.1, 0).Validate(), bad);
  EXPECT_EQ(Make(RegularizerKind::kNone, 0, 0.1).Validate(), bad);
  EXPECT_EQ(Make(RegularizerKind::kL2, 0.1, 0.1).Validate(), bad);
  EXPECT_EQ(Make(RegularizerKind::kL1, 0.1, 0.1).Validate(), bad);
  EXPECT_EQ(Make(RegularizerKind::kL1, -0.1, 0).Validate(), bad);
  EXPECT_EQ(Make(RegularizerKind::kL2, 0, NAN).Validate(), bad);
  EXPECT_EQ(Make(RegularizerKind::kElasticNet, INFINITY, 1).Validate(), bad);
  EXPECT_EQ(Make(static_cast<RegularizerKind>(9), 0, 0).Validate(), bad);
}

TEST(RegularizerTest, ValueAndSubgradient) {
  const Real w[] = {1.0, -2.0, 0.0};
  const Regularizer r = Make(RegularizerKind::kElasticNet, 0.5, 0.2);
  EXPECT_DOUBLE_EQ(r.Value(w), 0.5 * 3 + 0.1 * 5);
  Real g[3];
  r.Subgradient(w, g);
  EXPECT_DOUBLE_EQ(g[0], 0.5 + 0.2);
  EXPECT_DOUBLE_EQ(g[1], -0.5 - 0.4);
  EXPECT_DOUBLE_EQ(g[2], 0.0);  // sgn(0) = 0
  // Unused weights count as zero for the kind in effect.
  const Regularizer l2_only = Make(RegularizerKind::kL2, 7, 0.2);
  EXPECT_DOUBLE_EQ(l2_only.Value(w), 0.1 * 5);
  EXPECT_DOUBLE_EQ(Make(RegularizerKind::kNone, 1, 1).Value(w), 0.0);
}

TEST(RegularizerTest, ProxKnownClosedForms) {
  Real out[kN];
  Make(RegularizerKind::kNone, 0, 0).Prox(kV, 2.0, out);
  for (size_t i = 0; i < kN; ++i) EXPECT_DOUBLE_EQ(out[i], kV[i]);
  // L2: v / (1 + s·l2).
  Make(RegularizerKind::kL2, 0, 0.5).Prox(kV, 2.0, out);
  for (size_t i = 0; i < kN; ++i) EXPECT_DOUBLE_EQ(out[i], kV[i] / 2);
  // L1: soft threshold at s·l1 = 0.3.
  Make(RegularizerKind::kL1, 0.15, 0).Prox(kV, 2.0, out);
  const Real soft[kN] = {2.7, 0.0, 0.0, -4.7, 0.05, 0.0, -0.1};
  for (size_t i = 0; i < kN; ++i) EXPECT_NEAR(out[i], soft[i], 1e-15) << i;
  // Elastic net: soft threshold then shrink by 1/(1 + s·l2) = 1/2.
  Make(RegularizerKind::kElasticNet, 0.15, 0.5).Prox(kV, 2.0, out);
  for (size_t i = 0; i < kN; ++i) EXPECT_NEAR(out[i], soft[i] / 2, 1e-15) << i;
}

// out = prox_{s r}(v) ⇔ (v − out)/s ∈ ∂r(out): on non-zero coordinates
// (v−out)/s = l1·sgn(out) + l2·out, on zero ones |v/s| ≤ l1.
TEST(RegularizerTest, ProxSatisfiesSubdifferentialCondition) {
  const Regularizer regs[] = {Make(RegularizerKind::kL1, 0.3, 0),
                              Make(RegularizerKind::kL2, 0, 1.7),
                              Make(RegularizerKind::kElasticNet, 0.2, 0.9)};
  for (const Regularizer& r : regs) {
    for (Real s : {0.01, 0.5, 3.0}) {
      Real out[kN];
      r.Prox(kV, s, out);
      for (size_t i = 0; i < kN; ++i) {
        const Real lhs = (kV[i] - out[i]) / s;
        if (out[i] != 0) {
          const Real sign = out[i] > 0 ? 1.0 : -1.0;
          EXPECT_NEAR(lhs, r.l1 * sign + r.l2 * out[i], 1e-12) << i;
        } else {
          EXPECT_LE(std::fabs(lhs), r.l1 + 1e-15) << i;
        }
      }
      // And it minimises r(x) + ||x − v||²/(2s) against perturbations.
      const auto objective = [&](const Real* x) {
        Real q = 0;
        for (size_t i = 0; i < kN; ++i) q += (x[i] - kV[i]) * (x[i] - kV[i]);
        return r.Value(Span<const Real>(x, kN)) + q / (2 * s);
      };
      const Real best = objective(out);
      for (size_t i = 0; i < kN; ++i) {
        // Above the compute type's resolution of the objective.
        for (Real delta : {-kMove, kMove}) {
          Real moved[kN];
          for (size_t k = 0; k < kN; ++k) moved[k] = out[k];
          moved[i] += delta;
          EXPECT_GT(objective(moved), best);
        }
      }
    }
  }
}

TEST(RegularizerTest, ProxMayAliasItsInput) {
  Real v[kN];
  for (size_t i = 0; i < kN; ++i) v[i] = kV[i];
  const Regularizer r = Make(RegularizerKind::kElasticNet, 0.15, 0.5);
  r.Prox(v, 2.0, v);
  Real expected[kN];
  r.Prox(kV, 2.0, expected);
  for (size_t i = 0; i < kN; ++i) EXPECT_DOUBLE_EQ(v[i], expected[i]);
  EXPECT_DOUBLE_EQ(v[0], 1.35);
}

}  // namespace
}  // namespace edgeadmm
