// Bounded shares on the gateway (docs/privacy.md, "Bounded shares"; issue
// 31 item 4): the sensitivities the per-party ledger and the plan charge,
// and the one sent to the devices (which clip to half of it), are derived
// from admm_sharing.share_clip / score_clip: Δ = 2C, Δ_s = 2C_s. A Δ given
// beside its clip must be 2C or the job is refused. Before, the ledger
// charged whatever `sensitivity` said (the key share_clip did not exist).
#include <cmath>
#include <string>

#include "edgeadmm/algorithms/admm_sharing.h"
#include "edgeadmm/algorithms/admm_sharing_ledger.h"
#include "edgeadmm/wire/protocol.h"
#include "gtest/gtest.h"

namespace edgeadmm::algorithms {
namespace {

jobs::JobConfig Rigorous() {
  jobs::JobConfig c;
  c.name = "share";
  c.loss = jobs::Loss::kLogistic;
  c.dimension = 5;
  c.rounds = 20;
  c.admm_sharing.parties = 2;
  c.admm_sharing.columns = {3, 2};
  c.admm_sharing.records = 4;
  c.admm_sharing.rho = 0.1;
  c.admm_sharing.lambda = 0.01;
  c.admm_sharing.labels = "labels.libsvm";
  c.admm_sharing.noise = jobs::SharingNoiseMode::kRigorous;
  c.admm_sharing.sigma = 0.3;
  c.admm_sharing.share_clip = 0.05;
  c.admm_sharing.target_delta = 1e-5;
  return c;
}

std::string Refusal(const jobs::JobConfig& c) {
  const host::Error e = ValidateAdmmSharing(c);
  return e.ok() ? "ok" : e.message();
}

TEST(AdmmSharingClipTest, TheChargedSensitivityIsTwiceTheShareClip) {
  const jobs::JobConfig c = Rigorous();
  ASSERT_EQ(Refusal(c), "ok");
  EXPECT_DOUBLE_EQ(SharingShareSensitivity(c.admm_sharing), 0.1);
  double nu = 0;
  ASSERT_TRUE(SharingPartyMechanism(c, 1, nu));
  EXPECT_DOUBLE_EQ(nu, 0.3 / 0.1);  // σ/Δ with Δ = 2C
  auto plan = PlanSharingPrivacy(c);
  ASSERT_TRUE(plan.ok());
  const double rho = 20 * 0.1 * 0.1 / (2 * 0.3 * 0.3);
  for (const SharingPartyPrivacy& p : *plan) {
    EXPECT_DOUBLE_EQ(p.sensitivity, 0.1);
    EXPECT_NEAR(p.epsilon, rho + 2 * std::sqrt(rho * std::log(1e5)), 1e-12);
  }
  // What the devices are sent (and clip to half of).
  edgeadmm_wire_RoundTask task = edgeadmm_wire_RoundTask_init_zero;
  task.which_params = edgeadmm_wire_RoundTask_sharing_params_tag;
  AdmmSharing algorithm;
  algorithm.FillNodeTask(c, 0, task);
  EXPECT_DOUBLE_EQ(task.params.sharing_params.sensitivity, 0.1);
  // The label names the clip and the derived Δ.
  const SharingLedgerMeaning m = DescribeSharingLedger(c);
  EXPECT_NE(m.relation.find("C = 0.05"), std::string::npos) << m.relation;
  EXPECT_NE(m.relation.find("Delta = 2C = 0.1"), std::string::npos);
  EXPECT_EQ(m.relation.find("not verified"), std::string::npos);
}

TEST(AdmmSharingClipTest, ASensitivityThatIsNotTwiceTheClipIsRefused) {
  jobs::JobConfig c = Rigorous();
  c.admm_sharing.sensitivity = 0.1;  // = 2C: accepted
  EXPECT_EQ(Refusal(c), "ok");
  c.admm_sharing.sensitivity = 1e-3;  // the old unchecked number
  EXPECT_NE(Refusal(c).find("admm_sharing.sensitivity: is derived from the "
                            "clip"),
            std::string::npos)
      << Refusal(c);
  c.admm_sharing.share_clip = 0;  // Δ alone: the clip is Δ/2
  EXPECT_EQ(Refusal(c), "ok");
  EXPECT_DOUBLE_EQ(SharingShareSensitivity(c.admm_sharing), 1e-3);
  c.admm_sharing.sensitivity = 0;  // neither
  EXPECT_NE(Refusal(c).find("admm_sharing.share_clip"), std::string::npos);
  c.admm_sharing.share_clip = -1;
  EXPECT_NE(Refusal(c).find("admm_sharing.share_clip"), std::string::npos);
}

TEST(AdmmSharingClipTest, TheScoresChargeTwiceTheScoreClip) {
  jobs::JobConfig c = Rigorous();
  c.admm_sharing.test_records = 2;
  c.admm_sharing.test_labels = "test.libsvm";
  c.admm_sharing.score_noise_given = true;
  c.admm_sharing.score_noise = jobs::SharingScoreNoise::kGaussian;
  c.admm_sharing.score_sigma = 0.5;
  c.admm_sharing.score_clip = 0.1;
  ASSERT_EQ(Refusal(c), "ok");
  double nu = 0;
  ASSERT_TRUE(SharingPartyMechanism(c, c.rounds, nu));
  // The last step: one Gaussian of ratio √((Δ/σ)² + (Δ_s/σ_s)²).
  const double ratio = std::sqrt(std::pow(0.1 / 0.3, 2) + std::pow(0.2 / 0.5, 2));
  EXPECT_NEAR(nu, 1 / ratio, 1e-15);
  auto plan = PlanSharingPrivacy(c);
  ASSERT_TRUE(plan.ok());
  EXPECT_DOUBLE_EQ((*plan)[0].score_sensitivity, 0.2);
  edgeadmm_wire_RoundTask task = edgeadmm_wire_RoundTask_init_zero;
  task.which_params = edgeadmm_wire_RoundTask_sharing_params_tag;
  AdmmSharing algorithm;
  algorithm.FillTask(c, 4, c.rounds - 1, task);
  EXPECT_DOUBLE_EQ(task.params.sharing_params.score_sensitivity, 0.2);
  c.admm_sharing.score_sensitivity = 0.5;  // not 2·C_s
  EXPECT_NE(Refusal(c).find("admm_sharing.score_sensitivity: is derived"),
            std::string::npos);
  c.admm_sharing.score_sensitivity = 0;
  c.admm_sharing.score_clip = 0;
  EXPECT_NE(Refusal(c).find("admm_sharing.score_clip"), std::string::npos);
}

}  // namespace
}  // namespace edgeadmm::algorithms
