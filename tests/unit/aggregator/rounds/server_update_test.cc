#include "edgeadmm/rounds/server_update.h"

#include <gtest/gtest.h>

#include <cmath>

namespace edgeadmm::rounds {
namespace {

jobs::JobConfig Config(AlgorithmKind algorithm) {
  jobs::JobConfig c;
  c.algorithm = algorithm;
  c.dimension = 2;
  c.gamma = 0.5;
  c.rho = 2.0;
  c.lambda = 0.5;
  c.sigma = 0;
  return c;
}

std::unique_ptr<SamplingRng> Rng() {
  auto rng = SamplingRng::Create(3);
  EXPECT_TRUE(rng.ok());
  return std::move(rng).value();
}

TEST(ServerUpdateTest, ProxAdmmDividesByEnrolledCountNotCohort) {
  // Paper 002 pitfall P3: ŝ += (1/n)·ΣΔu with n = 4 enrolled, m = 2 uploads.
  jobs::JobConfig c = Config(AlgorithmKind::kProxAdmm);
  ServerModel model{{0, 0}, {0.5, -1.0}, {}};
  auto rng = Rng();
  ASSERT_TRUE(ApplyRound(c, 4, {{1.0, 2.0}, {3.0, -6.0}}, *rng, model).ok());
  EXPECT_DOUBLE_EQ(model.state[0], 0.5 + 4.0 / 4);
  EXPECT_DOUBLE_EQ(model.state[1], -1.0 - 4.0 / 4);
  EXPECT_EQ(model.z, model.state);  // no regularizer: prox = identity
}

TEST(ServerUpdateTest, ProxAdmmSoftThresholdsWithGammaTimesL1) {
  jobs::JobConfig c = Config(AlgorithmKind::kProxAdmm);
  c.regularizer = {RegularizerKind::kElasticNet, 0.4, 1.0};
  ServerModel model{{0, 0}, {0, 0}, {}};
  auto rng = Rng();
  ASSERT_TRUE(ApplyRound(c, 1, {{1.0, -0.1}}, *rng, model).ok());
  // prox: sign(v)·max(|v| − γ·l1, 0)/(1 + γ·l2) with γ = 0.5.
  EXPECT_DOUBLE_EQ(model.z[0], (1.0 - 0.2) / 1.5);
  EXPECT_DOUBLE_EQ(model.z[1], 0.0);
  EXPECT_DOUBLE_EQ(model.state[0], 1.0);  // ŝ itself is not thresholded
}

// A model float32 cannot hold is never produced for a commit: the released
// z goes to every device as float32 (issue 14, item 3).
TEST(ServerUpdateTest, RefusesAModelFloat32CannotHold) {
  jobs::JobConfig c = Config(AlgorithmKind::kProxAdmm);
  ServerModel model{{0, 0}, {3e38, 0}, {}};
  const ServerModel before = model;
  auto rng = Rng();
  EXPECT_EQ(ApplyRound(c, 1, {{3e38, 0}}, *rng, model), Status::OutOfRange());
  EXPECT_EQ(model.z, before.z);
  EXPECT_EQ(model.state, before.state);
  EXPECT_EQ(ApplyRound(c, 1, {{-3e38, 1}}, *rng, model), Status::Ok());
}

TEST(ServerUpdateTest, TrustedAggregatorAddsNoiseOfStdLambdaSigma) {
  jobs::JobConfig c = Config(AlgorithmKind::kProxAdmm);
  c.policy = privacy::Policy::kTrustedAggregator;
  c.sigma = 4.0;  // noise std on the sum: λσ = 2
  c.dimension = 20000;
  ServerModel model{
      std::vector<double>(20000, 0.0), std::vector<double>(20000, 0.0), {}};
  auto rng = Rng();
  ASSERT_TRUE(
      ApplyRound(c, 1, {std::vector<double>(20000, 0.0)}, *rng, model).ok());
  double sum_sq = 0;
  for (double v : model.state) {
    sum_sq += v * v;
    // On the grid g = λσ/2^15 (sampling_rng_test.cc checks the law).
    ASSERT_EQ(v * 16384, std::round(v * 16384));
  }
  EXPECT_NEAR(std::sqrt(sum_sq / 20000), 2.0, 0.05);
}

TEST(ServerUpdateTest, LinearizedAdmmIsMeanOfNoisyModels) {
  jobs::JobConfig c = Config(AlgorithmKind::kLinearizedAdmm);
  ServerModel model{{9, 9}, {}, {}};
  auto rng = Rng();
  ASSERT_TRUE(ApplyRound(c, 10, {{1, 2}, {3, 4}, {5, -3}}, *rng, model).ok());
  EXPECT_DOUBLE_EQ(model.z[0], 3.0);
  EXPECT_DOUBLE_EQ(model.z[1], 1.0);
}

TEST(ServerUpdateTest, DpSgdAddsTheMeanModelChangeThenProx) {
  jobs::JobConfig c = Config(AlgorithmKind::kDpSgd);
  ServerModel model{{1, 1}, {}, {}};
  auto rng = Rng();
  // Δ_i = −γ∇f_i (E = 1): the mean over the m = 2 uploads, not over n.
  ASSERT_TRUE(ApplyRound(c, 10, {{-2, 0}, {0, -4}}, *rng, model).ok());
  EXPECT_DOUBLE_EQ(model.z[0], 1 - 1.0);
  EXPECT_DOUBLE_EQ(model.z[1], 1 - 2.0);
  c.regularizer = {RegularizerKind::kL1, 0.4, 0.0};
  model.z = {1, 1};
  ASSERT_TRUE(ApplyRound(c, 10, {{1, 0}, {1, -1}}, *rng, model).ok());
  EXPECT_DOUBLE_EQ(model.z[0], 2 - 0.5 * 0.4);  // soft-threshold γ·l1
  EXPECT_DOUBLE_EQ(model.z[1], 0.5 - 0.5 * 0.4);
}

TEST(ServerUpdateTest, RejectsEmptyOrWrongLength) {
  jobs::JobConfig c = Config(AlgorithmKind::kProxAdmm);
  ServerModel model{{0, 0}, {0, 0}, {}};
  auto rng = Rng();
  EXPECT_EQ(ApplyRound(c, 1, {}, *rng, model), Status::InvalidArgument());
  EXPECT_EQ(ApplyRound(c, 1, {{1, 2, 3}}, *rng, model),
            Status::InvalidArgument());
  EXPECT_EQ(model.z, (std::vector<double>{0, 0}));
}

}  // namespace
}  // namespace edgeadmm::rounds
