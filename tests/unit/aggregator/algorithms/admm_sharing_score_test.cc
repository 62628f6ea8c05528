// admm-sharing's scoring phase on the aggregator (docs/aggregator.md,
// "admm-sharing: the scoring phase"): the [admm_sharing] test keys and
// their refusals, the last task's score fields, the last round's upload
// length and kind, the plan's composed ε, and the last round split into
// shares (advancing z, y exactly as without scores) and partial scores
// (scored against the gateway's test labels), refusing a wrong length or a
// non-finite score.
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "edgeadmm/algorithms/admm_sharing.h"
#include "edgeadmm/algorithms/registry.h"
#include "edgeadmm/jobs/job_config.h"
#include "edgeadmm/wire/protocol.h"
#include "gtest/gtest.h"

namespace edgeadmm::algorithms {
namespace {

std::string File(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

jobs::JobConfig Job() {
  jobs::JobConfig c;
  c.name = "share";
  c.loss = jobs::Loss::kLogistic;
  c.dimension = 5;
  c.rounds = 3;
  c.admm_sharing.parties = 2;
  c.admm_sharing.columns = {3, 2};
  c.admm_sharing.records = 4;
  c.admm_sharing.rho = 0.1;
  c.admm_sharing.lambda = 0.01;
  c.admm_sharing.labels =
      File("score_train.libsvm", "+1 1:1\n-1 2:1\n-1 5:0.5\n+1 3:1\n");
  c.admm_sharing.test_labels =
      File("score_test.libsvm", "-1 1:1\n+1 2:1\n+1 4:1\n");
  c.admm_sharing.test_records = 3;
  c.admm_sharing.score_noise_given = true;
  c.admm_sharing.score_noise = jobs::SharingScoreNoise::kGaussian;
  c.admm_sharing.score_sigma = 0.5;
  c.admm_sharing.score_sensitivity = 0.25;
  return c;
}

std::string Refusal(const jobs::JobConfig& c) {
  const host::Error e = ValidateAdmmSharing(c);
  return e.ok() ? "ok" : e.message();
}

struct NoNoise : RoundNoise {
  Status AddNoise(double, std::vector<double>&) override {
    return Status::Ok();
  }
};

TEST(AdmmSharingScoreTest, TheScoreKeysAreCheckedAndNamed) {
  EXPECT_EQ(Refusal(Job()), "ok");
  jobs::JobConfig c = Job();
  c.admm_sharing.score_noise_given = false;  // must be chosen
  EXPECT_NE(Refusal(c).find("admm_sharing.score_noise: choose"),
            std::string::npos);
  c = Job();
  c.admm_sharing.score_sigma = 0;
  EXPECT_NE(Refusal(c).find("admm_sharing.score_sigma"), std::string::npos);
  c = Job();
  c.admm_sharing.score_sensitivity = std::nan("");  // no clip, Δ_s NaN
  EXPECT_NE(Refusal(c).find("admm_sharing.score_clip"), std::string::npos);
  c = Job();
  c.admm_sharing.score_noise = jobs::SharingScoreNoise::kExact;
  EXPECT_NE(Refusal(c).find("\"exact\" takes no score_sigma"),
            std::string::npos);
  c.admm_sharing.score_sigma = c.admm_sharing.score_sensitivity = 0;
  EXPECT_EQ(Refusal(c), "ok");
  c = Job();
  c.admm_sharing.test_labels.clear();
  EXPECT_NE(Refusal(c).find("admm_sharing.test_labels"), std::string::npos);
  c = Job();
  // N + K above the wire limit (EDGEADMM_CFG_MAX_RECORD_DIMENSION).
  c.admm_sharing.test_records =
      static_cast<int64_t>(wire::kMaxRecordDimension) - 4 + 1;
  EXPECT_NE(
      Refusal(c).find("admm_sharing.test_records: must be in [1, " +
                      std::to_string(wire::kMaxRecordDimension - 4) + "]"),
      std::string::npos);
  c = Job();
  c.admm_sharing.test_records = 0;  // score keys without a scoring phase
  EXPECT_NE(Refusal(c).find("admm_sharing.test_records: give"),
            std::string::npos);
  // The gateway must hold the K test labels.
  c = Job();
  c.admm_sharing.test_records = 4;
  const host::Error e = Get(AlgorithmKind::kAdmmSharing).Validate(c);
  EXPECT_NE(e.message().find("admm_sharing.test_labels"), std::string::npos)
      << e.message();
}

TEST(AdmmSharingScoreTest, TheTomlKeysReachTheConfig) {
  const jobs::JobConfig base = Job();
  const std::string toml =
      "[job]\nname = \"s\"\nalgorithm = \"admm-sharing\"\nloss = "
      "\"logistic\"\ndimension = 5\nrounds = 3\n[admm_sharing]\n"
      "parties = 2\ncolumns = [3, 2]\nrecords = 4\nrho = 0.1\n"
      "lambda = 0.01\nlabels = \"" +
      base.admm_sharing.labels + "\"\nnoise = \"none\"\ntest_labels = \"" +
      base.admm_sharing.test_labels +
      "\"\ntest_records = 3\nscore_noise = \"exact\"\n"
      "[sampling]\ndeadline_seconds = 5\n";
  auto job = jobs::ParseJobConfig(toml);
  ASSERT_TRUE(job.ok()) << job.error().message();
  EXPECT_EQ(job->admm_sharing.test_records, 3);
  EXPECT_TRUE(job->admm_sharing.score_noise_given);
  EXPECT_EQ(job->admm_sharing.score_noise, jobs::SharingScoreNoise::kExact);
  auto bad = jobs::ParseJobConfig(toml.substr(0, toml.find("score_noise")) +
                                  "[sampling]\n" + "deadline_seconds = 5\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message().find("admm_sharing.score_noise"),
            std::string::npos);
}

TEST(AdmmSharingScoreTest, OnlyTheLastRoundCarriesTheScoringPhase) {
  const jobs::JobConfig c = Job();
  const Algorithm& a = Get(AlgorithmKind::kAdmmSharing);
  EXPECT_EQ(a.UploadLengthAt(c, 0), 4);
  EXPECT_EQ(a.UploadLengthAt(c, 1), 4);
  EXPECT_EQ(a.UploadLengthAt(c, 2), 7);  // N + K in round T
  EXPECT_EQ(a.UploadLengthAt(c, 3), 7);  // a late copy after the commit
  EXPECT_EQ(a.MaxUploadLength(c), 7);
  EXPECT_EQ(a.UpdateKindAt(c, 1), edgeadmm_wire_UpdateKind_UPDATE_KIND_SHARE);
  EXPECT_EQ(a.UpdateKindAt(c, 2),
            edgeadmm_wire_UpdateKind_UPDATE_KIND_SHARE_AND_SCORES);
  edgeadmm_wire_RoundTask task = edgeadmm_wire_RoundTask_init_zero;
  a.FillTask(c, 2, 1, task);
  EXPECT_EQ(task.params.sharing_params.score_records, 0u);
  EXPECT_EQ(task.params.sharing_params.score_noise, 0u);
  task = edgeadmm_wire_RoundTask_init_zero;
  a.FillTask(c, 2, 2, task);
  a.node_tasks()->FillNodeTask(c, 1, task);
  const edgeadmm_wire_SharingParams& p = task.params.sharing_params;
  EXPECT_EQ(p.iteration, 3u);
  EXPECT_EQ(p.score_records, 3u);
  EXPECT_EQ(p.score_noise, 1u);
  EXPECT_DOUBLE_EQ(p.score_sigma, 0.5);
  EXPECT_DOUBLE_EQ(p.score_sensitivity, 0.25);
}

TEST(AdmmSharingScoreTest, RigorousPlanComposesTheScoreGaussian) {
  jobs::JobConfig c = Job();
  c.admm_sharing.noise = jobs::SharingNoiseMode::kRigorous;
  c.admm_sharing.sigma = 0.1;
  c.admm_sharing.sensitivity = 0.01;
  c.admm_sharing.target_delta = 1e-5;
  auto plan = PlanSharingPrivacy(c);
  ASSERT_TRUE(plan.ok()) << plan.error().message();
  // ρ = TΔ²/(2σ²) + Δ_s²/(2σ_s²) = 3·0.005 + 0.125 = 0.14.
  const double rho = 3 * 0.01 * 0.01 / (2 * 0.01) + 0.25 * 0.25 / (2 * 0.25);
  EXPECT_NEAR((*plan)[0].epsilon, rho + 2 * std::sqrt(rho * std::log(1e5)),
              1e-12);
  EXPECT_EQ((*plan)[0].score_release, "gaussian");
  const double rho_s = 0.125;
  EXPECT_NEAR((*plan)[1].score_epsilon,
              rho_s + 2 * std::sqrt(rho_s * std::log(1e5)), 1e-12);
  c.admm_sharing.score_noise = jobs::SharingScoreNoise::kExact;
  c.admm_sharing.score_sigma = c.admm_sharing.score_sensitivity = 0;
  plan = PlanSharingPrivacy(c);
  ASSERT_TRUE(plan.ok());
  EXPECT_TRUE(std::isinf((*plan)[0].epsilon));  // an uncovered release
  EXPECT_EQ((*plan)[0].score_release, "exact (uncovered)");
}

TEST(AdmmSharingScoreTest, TheLastRoundScoresTheSummedPartialScores) {
  const jobs::JobConfig c = Job();
  const Algorithm& a = Get(AlgorithmKind::kAdmmSharing);
  NoNoise noise;
  const std::vector<double> s0 = {0.1, -0.2, 0.3, 0.0};
  const std::vector<double> s1 = {0.5, 0.1, -0.4, 0.2};
  // Partial scores: margins t = (−1.5, 0.5, 2): Y = (−1, +1, +1).
  std::vector<double> u0 = s0;
  u0.insert(u0.end(), {-1.0, 1.0, 0.5});
  std::vector<double> u1 = s1;
  u1.insert(u1.end(), {-0.5, -0.5, 1.5});
  ServerModel plain;
  plain.z.assign(8, 0.0);
  plain.state.assign(8, 0.0);
  ServerModel scored = plain;
  ASSERT_TRUE(a.ApplyRound(c, 2, {s0, s1}, noise, plain).ok());
  EXPECT_EQ(plain.test_score.records, 0);
  ASSERT_TRUE(a.ApplyRound(c, 2, {u0, u1}, noise, scored).ok());
  EXPECT_EQ(scored.z, plain.z);  // the shares advance (z, y) alike
  EXPECT_EQ(scored.state, plain.state);
  EXPECT_EQ(scored.test_score.records, 3);
  const double loss = (std::log1p(std::exp(-1.5)) + std::log1p(std::exp(-0.5)) +
                       std::log1p(std::exp(-2.0))) /
                      3;
  EXPECT_NEAR(scored.test_score.log_loss, loss, 1e-12);
  EXPECT_NEAR(scored.test_score.accuracy, 1.0, 1e-12);
  // Refused, model unchanged: a non-finite partial score, a short upload,
  // one party's scores missing.
  ServerModel before = scored;
  std::vector<double> bad = u1;
  bad[5] = std::nan("");
  EXPECT_FALSE(a.ApplyRound(c, 2, {u0, bad}, noise, scored).ok());
  EXPECT_FALSE(a.ApplyRound(c, 2,
                            {u0, std::vector<double>(u1.begin(), u1.end() - 1)},
                            noise, scored)
                   .ok());
  EXPECT_FALSE(a.ApplyRound(c, 2, {u0, s1}, noise, scored).ok());
  EXPECT_EQ(scored.z, before.z);
  EXPECT_EQ(scored.state, before.state);
}

}  // namespace
}  // namespace edgeadmm::algorithms
