// PlanSigma plans for the job's accountant: a pld job's σ is the smallest
// whose PLD ε over the planned schedule meets the target, below the rdp
// job's σ for the same target.
#include "edgeadmm/rounds/noise_planner.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "edgeadmm/algorithms/registry.h"
#include "edgeadmm/grid_gaussian.h"
#include "edgeadmm/privacy/gaussian_mechanism.h"
#include "edgeadmm/privacy/pld_accountant.h"

namespace edgeadmm::rounds {
namespace {

jobs::JobConfig Planned(privacy::Policy policy,
                        jobs::CentralAccountant accountant) {
  jobs::JobConfig c;
  c.algorithm = AlgorithmKind::kProxAdmm;
  c.policy = policy;
  c.accountant = accountant;
  c.lambda = 0.5;
  c.clip = 1.0;
  c.target_epsilon = 2.0;
  c.delta = 1e-5;
  c.rounds = 40;
  c.q = 0.1;
  c.m_min = policy == privacy::Policy::kTrustedAggregator ? 0 : 4;
  return c;
}

TEST(NoisePlannerTest, ParticipationPldPlanMeetsTheTargetExactly) {
  const jobs::JobConfig pld =
      Planned(privacy::Policy::kParticipation, jobs::CentralAccountant::kPld);
  const jobs::JobConfig rdp =
      Planned(privacy::Policy::kParticipation, jobs::CentralAccountant::kRdp);
  const double sigma_pld = PlanSigma(pld).value();
  const double sigma_rdp = PlanSigma(rdp).value();
  EXPECT_LT(sigma_pld, 0.97 * sigma_rdp);
  // 40 Gaussian rounds of ν = σ√(m_min − t)/(2C) (t = 1 colluding device,
  // the default) are one of ν/√40.
  ASSERT_EQ(pld.max_colluders, 1);
  const double nu = sigma_pld * std::sqrt(4.0 - 1.0) / 2.0;
  const double eps =
      privacy::GaussianEpsilon(nu / std::sqrt(40.0), 1e-5).value();
  EXPECT_LE(eps, 2.0);
  EXPECT_GT(eps, 0.99 * 2.0);
}

TEST(NoisePlannerTest, TrustedAggregatorPldPlanMeetsTheTarget) {
  const jobs::JobConfig pld = Planned(privacy::Policy::kTrustedAggregator,
                                      jobs::CentralAccountant::kPld);
  const double sigma_pld = PlanSigma(pld).value();
  EXPECT_LT(sigma_pld, PlanSigma(Planned(privacy::Policy::kTrustedAggregator,
                                         jobs::CentralAccountant::kRdp))
                           .value());
  privacy::PldAccountant accountant;
  ASSERT_TRUE(accountant.Compose(0.1, sigma_pld / 2.0, 40).ok());
  const double eps = accountant.Epsilon(1e-5).value();
  EXPECT_LE(eps, 2.0);
  EXPECT_GT(eps, 0.99 * 2.0);
}

// dp-ftrl (charged per participation, q = 1): a pld job's σ is the smallest
// whose exact Gaussian ε over its k participations (what the PLD ledger
// reports) meets the target, below the rdp job's.
TEST(NoisePlannerTest, DpFtrlPldPlanMeetsTheTargetExactly) {
  jobs::JobConfig pld = Planned(privacy::Policy::kTrustedAggregator,
                                jobs::CentralAccountant::kPld);
  pld.algorithm = AlgorithmKind::kDpFtrl;
  pld.rounds = 8;
  pld.dimension = 2;
  jobs::JobConfig rdp = pld;
  rdp.accountant = jobs::CentralAccountant::kRdp;
  const double sigma_pld = PlanSigma(pld).value();
  const double sigma_rdp = PlanSigma(rdp).value();
  std::printf("dp-ftrl plan: sigma pld %.6g, rdp %.6g\n", sigma_pld, sigma_rdp);
  EXPECT_LT(sigma_pld, 0.97 * sigma_rdp);
  const algorithms::ParticipationCharge* charge =
      algorithms::Get(AlgorithmKind::kDpFtrl).participation_charge();
  ASSERT_NE(charge, nullptr);
  const double k = static_cast<double>(charge->MaxParticipations(pld));
  pld.sigma = sigma_pld;
  const double eps =
      privacy::GaussianEpsilon(
          charge->ParticipationNoiseMultiplier(pld) / std::sqrt(k), 1e-5)
          .value();
  EXPECT_LE(eps, 2.0);
  EXPECT_GT(eps, 0.99 * 2.0);
}

// The plan includes the grid's rounding (sdk grid_gaussian.h): for p = 123
// the σ planned, charged as the ledger charges it (GridNoiseMultiplier of the
// device's ν, times √(m_min − t)), meets the target; the σ planned without
// it (p = 0, no rounding) does not: its charge at p = 123 exceeds the
// target. prox-admm (ν = σ/(2C)) and dp-sgd (ν = σ/C).
TEST(NoisePlannerTest, PlanIncludesTheGridsRoundingCharge) {
  for (AlgorithmKind algorithm :
       {AlgorithmKind::kProxAdmm, AlgorithmKind::kDpSgd}) {
    SCOPED_TRACE(static_cast<int>(algorithm));
    jobs::JobConfig c =
        Planned(privacy::Policy::kParticipation, jobs::CentralAccountant::kPld);
    c.algorithm = algorithm;
    const double per_sigma = algorithm == AlgorithmKind::kDpSgd ? 1.0 : 0.5;
    // ε of 40 rounds as the ledger charges σ at p = 123 (exact Gaussian ε,
    // which the planner's PLD bounds from above).
    const auto charged_epsilon = [&](double sigma) {
      const double nu = GridNoiseMultiplier(sigma * per_sigma / c.clip, 123) *
                        std::sqrt(4.0 - 1.0);
      return privacy::GaussianEpsilon(nu / std::sqrt(40.0), 1e-5).value();
    };
    c.dimension = 0;  // no rounding: the old plan
    const double sigma_old = PlanSigma(c).value();
    c.dimension = 123;
    const double sigma = PlanSigma(c).value();
    std::printf(
        "grid-charged plan: sigma %.6g (unrounded plan %.6g, x%.4f), "
        "charged epsilon %.4f (unrounded plan: %.4f)\n",
        sigma, sigma_old, sigma / sigma_old, charged_epsilon(sigma),
        charged_epsilon(sigma_old));
    EXPECT_LE(charged_epsilon(sigma), 2.0);
    EXPECT_GT(charged_epsilon(sigma), 0.98 * 2.0);
    EXPECT_GT(charged_epsilon(sigma_old), 2.0);
    // ≈ ν·√p/2048 more noise (ν ≈ 8 here).
    EXPECT_GT(sigma / sigma_old, 1.03);
    EXPECT_LT(sigma / sigma_old, 1.06);
  }
}

}  // namespace
}  // namespace edgeadmm::rounds
