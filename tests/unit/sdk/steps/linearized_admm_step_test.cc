#include "edgeadmm/linearized_admm_step.h"

#include <cmath>

#include "edgeadmm/drbg.h"
#include "edgeadmm/fake/test_entropy.h"
#include "gtest/gtest.h"
#include "synthetic_data.h"

namespace edgeadmm {
namespace {

constexpr size_t kProviders = 4;
constexpr size_t kSamples = 12;
constexpr size_t kDim = 6;
constexpr size_t kBytes = LinearizedAdmmStep::WorkspaceBytes(kSamples, kDim);

LinearizedAdmmParams PaperParams(LinearizedSchedule schedule) {
  LinearizedAdmmParams p;
  p.rho = 1.0;
  p.reg_weight = 0.17;
  p.providers = kProviders;
  p.schedule = schedule;
  p.regularizer.kind = schedule == LinearizedSchedule::kConvex
                           ? RegularizerKind::kL1
                           : RegularizerKind::kL2;
  if (schedule == LinearizedSchedule::kConvex) {
    p.regularizer.l1 = 1.0;
  } else {
    p.regularizer.l2 = 1.0;
  }
  p.dw = 2.0;
  p.s2 = std::sqrt(Real{kDim});
  p.epsilon = 0.1;
  p.delta = 1e-3;
  return p;
}

TEST(LinearizedAdmmParamsTest, SchedulesMatchPaper004) {
  LinearizedAdmmParams convex = PaperParams(LinearizedSchedule::kConvex);
  // η = D_w / ((S1 + λ S2 / N) √(2(k+1))) at k = 3.
  EXPECT_NEAR(convex.StepSize(3, 210),
              2.0 / ((1 + 0.17 * std::sqrt(6.0) / 4) * std::sqrt(8.0)), 1e-12);
  LinearizedAdmmParams smooth = PaperParams(LinearizedSchedule::kSmooth);
  const Real expected_eta =
      1 / (0.25 + 0.17 / 4 +
           2 * std::sqrt(4 * 4 * std::log(1.25 / 1e-3)) / (210 * 0.1 * 2.0));
  EXPECT_NEAR(smooth.StepSize(3, 210), expected_eta, 1e-12);
  // σ/Δ = √(2 ln(1.25/δ))/ε is the same at every iteration (Thm 1).
  for (uint32_t k : {0u, 5u, 99u}) {
    EXPECT_NEAR(smooth.NoiseStd(k, 210) / smooth.Sensitivity(k, 210),
                std::sqrt(2 * std::log(1.25e3)) / 0.1, 1e-9);
    EXPECT_NEAR(smooth.Sensitivity(k, 210),
                2.0 / (210 * (1.0 + 1 / smooth.StepSize(k, 210))), 1e-15);
  }
  // The noise shrinks as k grows (1/η grows like √k).
  EXPECT_LT(smooth.NoiseStd(50, 210), smooth.NoiseStd(0, 210));
}

// The federation of paper 004, in process: N devices, trainer mean (3c),
// dual updates (3d). Σγ_i stays 0 every round (digest 004 §2.2), so
// w^{k+1} equals the plain mean of the noisy models.
TEST(LinearizedAdmmStepTest, DualVariablesAlwaysSumToZero) {
  for (LinearizedSchedule schedule :
       {LinearizedSchedule::kConvex, LinearizedSchedule::kSmooth}) {
    const LinearizedAdmmParams params = PaperParams(schedule);
    testing::SyntheticData<kSamples, kDim> shards[kProviders] = {
        testing::SyntheticData<kSamples, kDim>(1),
        testing::SyntheticData<kSamples, kDim>(2),
        testing::SyntheticData<kSamples, kDim>(3),
        testing::SyntheticData<kSamples, kDim>(4)};
    DatasetView views[kProviders];
    alignas(Workspace::kAlignment) static std::byte memory[kProviders][kBytes];
    LinearizedAdmmStep steps[kProviders];
    Real w_tilde[kProviders][kDim] = {};
    Real gamma[kProviders][kDim] = {};
    Real w[kDim] = {};
    TestEntropy entropy(99);
    Drbg drbg;
    ASSERT_TRUE(drbg.Init(entropy, ConstByteSpan()).ok());
    DiscreteGaussianSampler noise(drbg);
    Loss loss;
    for (size_t i = 0; i < kProviders; ++i) {
      views[i] = shards[i].View();
      Workspace ws(ByteSpan(memory[i], kBytes));
      ASSERT_TRUE(steps[i].Init(ws, views[i], loss).ok());
    }
    for (uint32_t k = 0; k < 30; ++k) {
      for (size_t i = 0; i < kProviders; ++i) {
        auto report = steps[i].Run(params, k, w, gamma[i], w_tilde[i], noise);
        ASSERT_TRUE(report.ok());
        EXPECT_GT(report->noise_std, 0);
      }
      // (3c): w = mean(w̃) − mean(γ)/ρ.
      for (size_t c = 0; c < kDim; ++c) {
        Real mean_w = 0, mean_g = 0;
        for (size_t i = 0; i < kProviders; ++i) {
          mean_w += w_tilde[i][c] / kProviders;
          mean_g += gamma[i][c] / kProviders;
        }
        w[c] = mean_w - mean_g / params.rho;
      }
      for (size_t i = 0; i < kProviders; ++i) {
        ASSERT_TRUE(
            LinearizedAdmmStep::DualUpdate(params.rho, w_tilde[i], w, gamma[i])
                .ok());
      }
      for (size_t c = 0; c < kDim; ++c) {
        Real sum = 0, scale = 0;
        for (size_t i = 0; i < kProviders; ++i) {
          sum += gamma[i][c];
          scale += std::abs(gamma[i][c]);
        }
        // A few roundings of the compute type per term.
        const Real rel = sizeof(Real) == 4 ? ToReal(1e-5) : ToReal(1e-12);
        EXPECT_LE(std::abs(sum), rel * (1 + scale)) << "k=" << k;
      }
    }
  }
}

TEST(LinearizedAdmmStepTest, NoiselessStepIsTheClosedForm3a) {
  testing::SyntheticData<kSamples, kDim> data(5);
  DatasetView view = data.View();
  alignas(Workspace::kAlignment) std::byte memory[kBytes];
  Workspace ws(ByteSpan(memory, kBytes));
  LinearizedAdmmStep step;
  Loss loss;
  ASSERT_TRUE(step.Init(ws, view, loss).ok());
  LinearizedAdmmParams params = PaperParams(LinearizedSchedule::kSmooth);
  params.add_noise = false;
  Real w[kDim], gamma[kDim], wt[kDim], wt0[kDim];
  testing::Lcg rng(8);
  for (size_t c = 0; c < kDim; ++c) {
    w[c] = rng.Next();
    gamma[c] = 0.1 * rng.Next();
    wt[c] = wt0[c] = rng.Next();
  }
  TestEntropy entropy(1);
  Drbg drbg;
  ASSERT_TRUE(drbg.Init(entropy, ConstByteSpan()).ok());
  DiscreteGaussianSampler noise(drbg);
  auto report = step.Run(params, 2, w, gamma, wt, noise);
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->noise_std, 0);
  // Independent evaluation of (3a) with the logistic gradient at w̃.
  const Real eta = params.StepSize(2, kSamples);
  for (size_t c = 0; c < kDim; ++c) {
    Real grad = 0;
    for (size_t j = 0; j < kSamples; ++j) {
      Real t = 0;
      for (size_t q = 0; q < kDim; ++q)
        t += data.features[j * kDim + q] * wt0[q];
      const Real b = data.labels[j];
      grad += -b * data.features[j * kDim + c] / (1 + std::exp(b * t));
    }
    grad = grad / kSamples + 0.17 / kProviders * wt0[c];
    const Real expected = (params.rho * w[c] + gamma[c] + wt0[c] / eta - grad) /
                          (params.rho + 1 / eta);
    EXPECT_NEAR(wt[c], expected, 1e-12) << c;
  }
}

TEST(LinearizedAdmmStepTest, RefusesBadParameters) {
  testing::SyntheticData<kSamples, kDim> data(5);
  DatasetView view = data.View();
  alignas(Workspace::kAlignment) std::byte memory[kBytes];
  Workspace ws(ByteSpan(memory, kBytes));
  LinearizedAdmmStep step;
  Loss loss;
  ASSERT_TRUE(step.Init(ws, view, loss).ok());
  TestEntropy entropy(1);
  Drbg drbg;
  ASSERT_TRUE(drbg.Init(entropy, ConstByteSpan()).ok());
  DiscreteGaussianSampler noise(drbg);
  Real w[kDim] = {}, gamma[kDim] = {}, wt[kDim] = {};
  LinearizedAdmmParams bad = PaperParams(LinearizedSchedule::kSmooth);
  bad.delta = 1.0;
  EXPECT_EQ(step.Run(bad, 0, w, gamma, wt, noise).status(),
            Status::InvalidArgument());
  bad = PaperParams(LinearizedSchedule::kSmooth);
  bad.providers = 0;
  EXPECT_EQ(step.Run(bad, 0, w, gamma, wt, noise).status(),
            Status::InvalidArgument());
  w[0] = INFINITY;
  EXPECT_EQ(
      step.Run(PaperParams(LinearizedSchedule::kSmooth), 0, w, gamma, wt, noise)
          .status(),
      Status::InvalidArgument());
}

}  // namespace
}  // namespace edgeadmm
