// The approximate-minima release's charge (pp_output_perturbation.h) by
// hand, the sampler's total variation, the (ε, δ) conversion, that the
// conversion is an upper bound for the Gaussian mechanism it stands for
// (the exact Gaussian trade-off of Balle and Wang 2018 at that ε stays below
// δ), and the accountant's ChargeRelease and Privacy. Portable.
#include "edgeadmm/pp_output_perturbation.h"

#include <cmath>

#include "edgeadmm/penalty_perturbation_accountant.h"
#include "gtest/gtest.h"

namespace edgeadmm {
namespace {

// γ = 1e-4, σ = 0.04 (z = 200), d = 123 (a9a's features plus one):
// g = 0.04/1024, Δ = 2γ + g·√123·(1 + 2^-22) = 6.33224185570288e-4 and
// Δ²/(2σ²) = 1.253040216222358e-4 (python, double).
TEST(PpOutputPerturbationTest, SensitivityAndZcdpByHand) {
  auto delta = PpOutputSensitivity(1e-4, 0.04, 123);
  ASSERT_TRUE(delta.ok());
  EXPECT_GE(*delta, 6.33224185570288e-4);
  EXPECT_NEAR(*delta, 6.33224185570288e-4, 1e-15);
  auto rho = PpOutputZcdp(1e-4, 0.04, 123);
  ASSERT_TRUE(rho.ok());
  EXPECT_GE(*rho, 1.253040216222358e-4);
  EXPECT_NEAR(*rho, 1.253040216222358e-4, 1e-16);
  // The grid's rounding alone: γ → 0 leaves (√d(1 + 2^-22)/2^10)²/2.
  auto floor = PpOutputZcdp(1e-300, 1, 123);
  ASSERT_TRUE(floor.ok());
  const double slack = 1 + std::ldexp(1.0, -22);
  EXPECT_NEAR(*floor, 123.0 / (1 << 20) / 2 * slack * slack, 1e-16);
  EXPECT_FALSE(PpOutputSensitivity(0, 1, 3).ok());
  EXPECT_FALSE(PpOutputSensitivity(1, 0, 3).ok());
  EXPECT_FALSE(PpOutputSensitivity(1, 1, 0).ok());
  EXPECT_FALSE(PpOutputZcdp(NAN, 1, 3).ok());
}

// τ = (2d + 8)·2^-1022 + 2·2^-36·(1 + √d) + 2·2^-40: at d = 123,
// 254·2^-1022 (below an ulp of the rest) + 2^-35·(1 + 11.0905365064094)
// + 2^-39 = 3.518809246134891e-10 + 1.8189894035e-12 = 3.53699914017035e-10.
TEST(PpOutputPerturbationTest, SamplerTotalVariationByHand) {
  auto tv = PpSamplerTotalVariation(123);
  ASSERT_TRUE(tv.ok());
  EXPECT_GE(*tv, 3.53699914017035e-10);
  EXPECT_NEAR(*tv, 3.53699914017035e-10, 1e-24);
  EXPECT_FALSE(PpSamplerTotalVariation(0).ok());
}

// ε = 0.01 + 3.76e-3 + 2√(3.76e-3·ln 1e5) = 0.42987825121370515 and
// δ' = 1e-5 + (1 + e^ε)·1e-9 = 1.0002537070375704e-05 (python).
TEST(PpOutputPerturbationTest, ApproxDpByHand) {
  auto p = PpApproxDp(0.01, 3.76e-3, 1e-9, 1e-5);
  ASSERT_TRUE(p.ok());
  EXPECT_GE(p->epsilon, 0.42987825121370515);
  EXPECT_NEAR(p->epsilon, 0.42987825121370515, 1e-14);
  EXPECT_GE(p->delta, 1.0002537070375704e-05);
  EXPECT_NEAR(p->delta, 1.0002537070375704e-05, 1e-18);
  // Nothing released by a Gaussian: the pure part, δ unchanged.
  auto pure = PpApproxDp(0.5, 0, 0, 1e-6);
  ASSERT_TRUE(pure.ok());
  EXPECT_GE(pure->epsilon, 0.5);
  EXPECT_NEAR(pure->epsilon, 0.5, 1e-15);
  EXPECT_NEAR(pure->delta, 1e-6, 1e-20);
  EXPECT_FALSE(PpApproxDp(-1, 0, 0, 1e-5).ok());
  EXPECT_FALSE(PpApproxDp(0, INFINITY, 0, 1e-5).ok());
  EXPECT_FALSE(PpApproxDp(0, 0, 0, 0).ok());
  EXPECT_FALSE(PpApproxDp(0, 0, 0, 1).ok());
}

// The exact δ(ε) of a Gaussian mechanism with Δ/σ = r (Balle, Wang 2018,
// Thm. 8): Φ(r/2 − ε/r) − e^ε Φ(−r/2 − ε/r).
double GaussianDelta(double r, double epsilon) {
  const auto phi = [](double x) { return 0.5 * std::erfc(-x / std::sqrt(2)); };
  return phi(r / 2 - epsilon / r) -
         std::exp(epsilon) * phi(-r / 2 - epsilon / r);
}

// The conversion is an upper bound: T releases of Δ/σ = r compose to one
// Gaussian of Δ/σ = r√T, whose exact δ at the reported ε is below δ; and
// the check is not vacuous: at half that ε it is above δ, so a conversion
// that understated ε by half would fail it.
TEST(PpOutputPerturbationTest, ConversionBoundsTheExactGaussian) {
  for (const uint32_t t : {1u, 30u, 1000u}) {
    auto rho = PpOutputZcdp(1e-4, 0.04, 123);
    ASSERT_TRUE(rho.ok());
    const double r = std::sqrt(2 * *rho * t);
    auto p = PpApproxDp(0, *rho * t, 0, 1e-5);
    ASSERT_TRUE(p.ok());
    EXPECT_LE(GaussianDelta(r, p->epsilon), 1e-5) << t;
    EXPECT_GT(GaussianDelta(r, 0.5 * p->epsilon), 1e-5) << t;
  }
}

// ChargeRelease adds paper 001's term, one release's zCDP and one draw's
// total variation per iteration; Privacy converts the sums.
TEST(PpOutputPerturbationTest, AccountantChargesEachReleaseByHand) {
  PenaltyPerturbationParams params;
  params.loss_weight = 1;
  params.reg_weight = 1;
  params.nodes = 5;
  params.degree = 4;
  params.theta = 0.5;
  params.eta1 = 0.5;
  params.alpha1 = 50;
  params.output_radius = 1e-4;
  params.output_noise_multiplier = 200;
  PenaltyPerturbationAccountant acc;
  ASSERT_TRUE(acc.Init(params, 0.25, 100).ok());
  constexpr uint32_t kT = 30;
  for (uint32_t t = 1; t <= kT; ++t) {
    ASSERT_TRUE(acc.ChargeRelease(params, t, 123).ok());
  }
  // Paper 001's term: 30·(1.4/4 + 50)/(0.5·4·100) = 7.5525.
  EXPECT_NEAR(acc.loss(), 7.5525, 1e-12);
  auto privacy = acc.Privacy(1e-5);
  ASSERT_TRUE(privacy.ok());
  auto expected = PpApproxDp(acc.loss(), kT * *PpOutputZcdp(1e-4, 0.04, 123),
                             kT * *PpSamplerTotalVariation(123), 1e-5);
  ASSERT_TRUE(expected.ok());
  EXPECT_NEAR(privacy->epsilon, expected->epsilon, 1e-12);
  EXPECT_NEAR(privacy->delta, expected->delta, 1e-18);
  // The paper's number alone (what the job reported before) understates it.
  EXPECT_GT(privacy->epsilon, acc.loss() + 0.4);
  params.add_noise = false;
  EXPECT_EQ(acc.ChargeRelease(params, 1, 123).code(),
            StatusCode::kFailedPrecondition);
  PenaltyPerturbationAccountant fresh;
  EXPECT_EQ(fresh.Privacy(1e-5).status().code(),
            StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace edgeadmm
