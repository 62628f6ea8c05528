// PldRoundAccountant: the central ledgers' ε from the PLD of the schedule
// read back from the RDP curve. Goldens: the analytic Gaussian ε(δ) by
// mpmath at 40 digits (bisection on Balle & Wang 2018, Thm. 8, independent
// of the C++).
#include "edgeadmm/rounds/pld_round_accountant.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "edgeadmm/privacy/gaussian_mechanism.h"
#include "edgeadmm/privacy/pld_accountant.h"

namespace edgeadmm::rounds {
namespace {

std::vector<double> Compose(const RoundAccountant& a,
                            const std::vector<RoundMechanism>& rounds) {
  std::vector<double> sum(a.order_count(), 0.0);
  for (const RoundMechanism& m : rounds) ComposeRdp(sum, a.RoundRdp(m));
  return sum;
}

TEST(GaussianEpsilonTest, MatchesTheAnalyticGaussianComputedByMpmath) {
  struct Row {
    double z, delta, epsilon;
  };
  for (const Row& r :
       {Row{0.5, 1e-5, 9.9972561464343004}, Row{1, 1e-5, 4.3771780956812246},
        Row{2, 1e-5, 1.9930914044151196}, Row{1, 1e-8, 5.7760983828902683},
        Row{5, 1e-6, 0.83411754862405235}}) {
    const double eps = privacy::GaussianEpsilon(r.z, r.delta).value();
    EXPECT_GE(eps, r.epsilon * (1 - 1e-12)) << r.z;  // an upper bound
    EXPECT_NEAR(eps, r.epsilon, 1e-9 * r.epsilon) << r.z;
  }
  EXPECT_FALSE(privacy::GaussianEpsilon(0, 1e-5).ok());
  EXPECT_FALSE(privacy::GaussianEpsilon(1, 1).ok());
}

// Participation: Gaussian rounds with different ν compose into one Gaussian
// with 1/z² = Σ 1/ν_k² (z = 0.62217101683825516 here; mpmath ε 7.6609...).
TEST(PldRoundAccountantTest, GaussianRoundsComposeExactly) {
  const PrivacyRoundAccountant rdp;
  const PldRoundAccountant pld(rdp, {0, 1});
  const std::vector<double> curve =
      Compose(rdp, {{1.0, 1}, {2.0, 1}, {0.5 * std::sqrt(3.0), 1}});
  const double eps = pld.Epsilon(curve, 1e-5);
  EXPECT_NEAR(eps, 7.660918174531203, 1e-8);
  EXPECT_LT(eps, rdp.Epsilon(curve, 1e-5));
  EXPECT_EQ(pld.conversion(), privacy::Conversion::kPld);
  EXPECT_EQ(pld.Epsilon(std::vector<double>(rdp.order_count(), 0.0), 1e-5), 0);
}

// Trusted-aggregator: k rounds of the job's Poisson-subsampled Gaussian are
// handed to the PLD accountant, which is tighter than RDP there.
TEST(PldRoundAccountantTest, SubsampledRoundsUseThePldAccountant) {
  const PrivacyRoundAccountant rdp;
  const RoundMechanism round{1.2, 0.05};
  const PldRoundAccountant pld(rdp, round);
  const std::vector<double> curve =
      Compose(rdp, std::vector<RoundMechanism>(50, round));
  privacy::PldAccountant reference;
  ASSERT_TRUE(reference.Compose(0.05, 1.2, 50).ok());
  const double expected = reference.Epsilon(1e-5).value();
  EXPECT_DOUBLE_EQ(pld.Epsilon(curve, 1e-5), expected);
  EXPECT_LT(expected, 0.95 * rdp.Epsilon(curve, 1e-5));
  // One more round is 51 rounds, not 50.
  std::vector<double> next = curve;
  ComposeRdp(next, rdp.RoundRdp(round));
  EXPECT_GT(pld.Epsilon(next, 1e-5), expected);
}

// A curve that is neither schedule is converted by RDP alone.
TEST(PldRoundAccountantTest, UnrecognisedCurvesFallBackToRdp) {
  const PrivacyRoundAccountant rdp;
  const PldRoundAccountant pld(rdp, {1.2, 0.05});
  const std::vector<std::vector<double>> curves = {
      // a Gaussian round added to subsampled ones
      Compose(rdp, {{1.2, 0.05}, {1.2, 0.05}, {3.0, 1}}),
      // another job's sampling rate
      Compose(rdp, {{1.2, 0.1}, {1.2, 0.1}}),
  };
  for (const std::vector<double>& curve : curves) {
    EXPECT_TRUE(std::isinf(pld.ScheduleEpsilon(curve, 1e-5)));
    EXPECT_EQ(pld.Epsilon(curve, 1e-5), rdp.Epsilon(curve, 1e-5));
  }
  // Without a subsampled round, a subsampled curve is not recognised either.
  const PldRoundAccountant gaussian_only(rdp, {0, 1});
  EXPECT_TRUE(std::isinf(
      gaussian_only.ScheduleEpsilon(Compose(rdp, {{1.2, 0.05}}), 1e-5)));
  // Infinite curves stay unbounded.
  EXPECT_TRUE(std::isinf(pld.Epsilon(rdp.RoundRdp({0, 1}), 1e-5)));
}

}  // namespace
}  // namespace edgeadmm::rounds
