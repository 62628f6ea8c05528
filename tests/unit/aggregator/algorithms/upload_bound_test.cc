// The upload norm bounds of each algorithm (docs/security.md, "Upload
// bounds"): the clip the device step applies plus σ(√p + 10) of noise.
#include <cmath>

#include "edgeadmm/algorithms/registry.h"
#include "edgeadmm/jobs/job_config.h"
#include "gtest/gtest.h"

namespace edgeadmm::algorithms {
namespace {

jobs::JobConfig Config(AlgorithmKind kind, privacy::Policy policy) {
  jobs::JobConfig c;
  c.algorithm = kind;
  c.policy = policy;
  c.dimension = 100;
  c.lambda = 0.5;
  c.clip = 2.0;
  c.sigma = 3.0;
  return c;
}

TEST(UploadBoundTest, ProxAdmmIsTwoLambdaCPlusLambdaSigmaAllowance) {
  const jobs::JobConfig c = Config(AlgorithmKind::kProxAdmm,
                                   privacy::Policy::kParticipation);
  // 2·0.5·2 + 0.5·3·(√100 + 10) = 2 + 30.
  EXPECT_DOUBLE_EQ(Get(c.algorithm).HonestUpload(c).Norm(1, c.dimension), 32.0);
}

TEST(UploadBoundTest, TrustedAggregatorDevicesSendNoNoise) {
  const jobs::JobConfig c = Config(AlgorithmKind::kProxAdmm,
                                   privacy::Policy::kTrustedAggregator);
  EXPECT_DOUBLE_EQ(Get(c.algorithm).HonestUpload(c).Norm(1, c.dimension), 2.0);
}

TEST(UploadBoundTest, DpSgdIsCPlusSigmaAllowance) {
  const jobs::JobConfig c = Config(AlgorithmKind::kDpSgd,
                                   privacy::Policy::kParticipationOwnNoise);
  EXPECT_DOUBLE_EQ(Get(c.algorithm).HonestUpload(c).Norm(1, c.dimension), 2.0 + 60.0);
}

TEST(UploadBoundTest, DpAdmmUploadsAModelAndHasNoNormBound) {
  const jobs::JobConfig c = Config(AlgorithmKind::kLinearizedAdmm,
                                   privacy::Policy::kParticipationOwnNoise);
  EXPECT_TRUE(std::isinf(Get(c.algorithm).HonestUpload(c).Norm(1, c.dimension)));
}

}  // namespace
}  // namespace edgeadmm::algorithms
