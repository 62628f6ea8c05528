#include "edgeadmm/dp_sgd_step.h"

#include <cmath>

#include "edgeadmm/drbg.h"
#include "edgeadmm/fake/test_entropy.h"
#include "edgeadmm/linear_model.h"
#include "gtest/gtest.h"
#include "synthetic_data.h"

namespace edgeadmm {
namespace {

constexpr size_t kSamples = 10;
constexpr size_t kDim = 7;
constexpr size_t kBytes = DpSgdStep::WorkspaceBytes(kSamples, kDim);

struct Device {
  testing::SyntheticData<kSamples, kDim> data{31};
  DatasetView view = data.View();
  alignas(Workspace::kAlignment) std::byte memory[kBytes];
  DpSgdStep step;
  TestEntropy entropy{2};
  Drbg drbg;
  DiscreteGaussianSampler noise{drbg};
  Real z[kDim] = {0.1, -0.2, 0.3, 0, 0.5, -0.1, 0.2};
  Real delta[kDim];

  Device() {
    Workspace ws(ByteSpan(memory, kBytes));
    Loss loss;
    EXPECT_TRUE(step.Init(ws, view, loss).ok());
    EXPECT_TRUE(drbg.Init(entropy, ConstByteSpan()).ok());
  }
};

TEST(DpSgdStepTest, OneUnclippedStepIsMinusLearningRateTimesGradient) {
  Device d;
  DpSgdParams params;
  params.learning_rate = 0.3;
  params.clip = 100;
  auto report = d.step.Run(params, d.z, d.noise, d.delta);
  ASSERT_TRUE(report.ok());
  EXPECT_FALSE(report->clipped);
  Real margins[kSamples], grad[kDim];
  Loss loss;
  LocalGradient(d.view, loss, Span<const Real>(d.z, kDim),
                Span<Real>(margins, kSamples), Span<Real>(grad, kDim));
  for (size_t c = 0; c < kDim; ++c) {
    EXPECT_NEAR(d.delta[c], -0.3 * grad[c], 1e-14) << c;
  }
}

TEST(DpSgdStepTest, LocalStepsDecreaseTheLossAndClippingBoundsTheUpdate) {
  Device d;
  DpSgdParams params;
  params.learning_rate = 0.5;
  params.local_steps = 20;
  params.clip = 0.05;
  Real margins[kSamples];
  Loss loss;
  const Real before = LocalObjective(d.view, loss, Span<const Real>(d.z, kDim),
                                     Span<Real>(margins, kSamples));
  auto report = d.step.Run(params, d.z, d.noise, d.delta);
  ASSERT_TRUE(report.ok());
  EXPECT_LT(report->final_loss, before);
  EXPECT_TRUE(report->clipped);
  Real norm2 = 0;
  for (Real v : d.delta) norm2 += v * v;
  EXPECT_NEAR(std::sqrt(norm2), 0.05, 1e-12);
  EXPECT_EQ(params.ReplaceOneSensitivity(kDim), 2 * params.clip);  // σ = 0
}

TEST(DpSgdStepTest, RefusesBadParameters) {
  Device d;
  DpSgdParams params;
  params.local_steps = 0;
  EXPECT_EQ(d.step.Run(params, d.z, d.noise, d.delta).status(),
            Status::InvalidArgument());
  params = DpSgdParams();
  params.clip = INFINITY;
  EXPECT_EQ(d.step.Run(params, d.z, d.noise, d.delta).status(),
            Status::InvalidArgument());
}

}  // namespace
}  // namespace edgeadmm
