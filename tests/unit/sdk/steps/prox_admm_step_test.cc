#include "edgeadmm/prox_admm_step.h"

#include <cmath>

#include "edgeadmm/drbg.h"
#include "edgeadmm/fake/test_entropy.h"
#include "edgeadmm/prox_tolerance.h"
#include "gtest/gtest.h"
#include "synthetic_data.h"

namespace edgeadmm {
namespace {

constexpr size_t kDim = 64;
constexpr size_t kWorkspace =
    ProxAdmmStep::WorkspaceBytes(LossKind::kSquared, 1, kDim);

struct Fixture {
  testing::SyntheticData<1, kDim> data{7, /*regression=*/true};
  DatasetView view = data.View();
  alignas(Workspace::kAlignment) std::byte memory[kWorkspace];
  Workspace ws{ByteSpan(memory, kWorkspace)};
  ProxAdmmStep step;
  TestEntropy entropy{42};
  Drbg drbg;
  DiscreteGaussianSampler noise{drbg};
  Real z[kDim];
  Real u[kDim];
  Real delta[kDim];

  Fixture() {
    Loss loss;
    loss.kind = LossKind::kSquared;
    EXPECT_TRUE(step.Init(ws, view, loss).ok());
    EXPECT_TRUE(drbg.Init(entropy, ConstByteSpan()).ok());
    testing::Lcg rng(3);
    for (size_t i = 0; i < kDim; ++i) {
      z[i] = rng.Next();
      u[i] = 0.5 * rng.Next();
    }
  }

  // Independent prox of the one-record squared loss (Sherman–Morrison):
  // x = (aaᵀ + I/s)⁻¹ (ab + v/s) with v = 2z − u.
  void ExpectedX(Real s, Real* x) const {
    Real a_dot_r = 0, a_norm2 = 0;
    Real r[kDim];
    for (size_t i = 0; i < kDim; ++i) {
      const Real a = data.features[i];
      r[i] = a * data.labels[0] + (2 * z[i] - u[i]) / s;
      a_dot_r += a * r[i];
      a_norm2 += a * a;
    }
    for (size_t i = 0; i < kDim; ++i) {
      x[i] = s * r[i] - s * s * data.features[i] * a_dot_r / (1 + s * a_norm2);
    }
  }
};

TEST(ProxAdmmStepTest, NoiselessUnclippedStepIsTwoLambdaTimesXMinusZ) {
  Fixture f;
  ProxAdmmParams params;
  params.lambda = 0.7;
  params.step = 0.5;
  Real x[kDim], u0[kDim];
  f.ExpectedX(params.step, x);
  for (size_t i = 0; i < kDim; ++i) u0[i] = f.u[i];
  auto report = f.step.Run(params, f.z, f.u, f.noise, f.delta);
  ASSERT_TRUE(report.ok());
  EXPECT_FALSE(report->clipped);
  EXPECT_LT(report->prox.kkt_residual, 10 * internal::ProxTolerance());
  for (size_t i = 0; i < kDim; ++i) {
    EXPECT_NEAR(f.delta[i], 2 * 0.7 * (x[i] - f.z[i]), 1e-10) << i;
    EXPECT_NEAR(f.u[i], u0[i] + f.delta[i], 1e-12) << i;
  }
}

TEST(ProxAdmmStepTest, ClippingBoundsTheUpdateAtTwoLambdaC) {
  Fixture f;
  ProxAdmmParams params;
  params.lambda = 0.5;
  params.step = 2.0;
  params.clip = 1e-3;
  Real x[kDim];
  f.ExpectedX(params.step, x);
  auto report = f.step.Run(params, f.z, f.u, f.noise, f.delta);
  ASSERT_TRUE(report.ok());
  ASSERT_TRUE(report->clipped);
  Real norm2 = 0, dot = 0, diff2 = 0;
  for (size_t i = 0; i < kDim; ++i) {
    norm2 += f.delta[i] * f.delta[i];
    dot += f.delta[i] * (x[i] - f.z[i]);
    diff2 += (x[i] - f.z[i]) * (x[i] - f.z[i]);
  }
  EXPECT_NEAR(std::sqrt(norm2), 2 * 0.5 * 1e-3, 1e-12);
  EXPECT_NEAR(report->step_norm, std::sqrt(diff2), 1e-9);
  // Same direction as x − z.
  EXPECT_NEAR(dot / (std::sqrt(norm2) * std::sqrt(diff2)), 1.0, 1e-9);
}

TEST(ProxAdmmStepTest, NoiseHasStdLambdaSigma) {
  Fixture noisy;
  Fixture clean;
  ProxAdmmParams params;
  params.lambda = 0.25;
  params.clip = 0.1;
  params.sigma = 3.0;
  auto r1 = noisy.step.Run(params, noisy.z, noisy.u, noisy.noise, noisy.delta);
  params.sigma = 0;
  auto r2 = clean.step.Run(params, clean.z, clean.u, clean.noise, clean.delta);
  ASSERT_TRUE(r1.ok());
  ASSERT_TRUE(r2.ok());
  Real mean = 0, var = 0;
  for (size_t i = 0; i < kDim; ++i) mean += noisy.delta[i] - clean.delta[i];
  mean /= kDim;
  for (size_t i = 0; i < kDim; ++i) {
    const Real e = noisy.delta[i] - clean.delta[i] - mean;
    var += e * e;
  }
  var /= kDim - 1;
  const Real expected = 0.25 * 3.0 * 0.25 * 3.0;
  // 64 samples: the sample variance is within ±60% of σ² with probability
  // about 1 − 1e-3 (chi-square, 63 degrees of freedom);
  // the seed is fixed, so the outcome is deterministic.
  EXPECT_GT(var, 0.4 * expected);
  EXPECT_LT(var, 1.6 * expected);
  EXPECT_LT(std::abs(mean), 5 * 0.75 / std::sqrt(Real{kDim}));
}

TEST(ProxAdmmStepTest, NoiseCanStayOutOfTheDeviceState) {
  Fixture noisy;
  Fixture clean;
  ProxAdmmParams params;
  params.clip = 0.1;
  params.sigma = 3.0;
  params.noise_in_state = false;
  Real u0[kDim];
  for (size_t i = 0; i < kDim; ++i) u0[i] = noisy.u[i];
  ASSERT_TRUE(
      noisy.step.Run(params, noisy.z, noisy.u, noisy.noise, noisy.delta).ok());
  params.sigma = 0;
  ASSERT_TRUE(
      clean.step.Run(params, clean.z, clean.u, clean.noise, clean.delta).ok());
  Real noise2 = 0;
  for (size_t i = 0; i < kDim; ++i) {
    // u moved by the noiseless term only; the upload carries the noise.
    EXPECT_NEAR(noisy.u[i], clean.u[i], 1e-15) << i;
    EXPECT_NEAR(noisy.u[i] - u0[i], clean.delta[i], 1e-15) << i;
    noise2 +=
        (noisy.delta[i] - clean.delta[i]) * (noisy.delta[i] - clean.delta[i]);
  }
  EXPECT_GT(noise2, 0.1);
}

TEST(ProxAdmmStepTest, RefusesBadParametersAndInputs) {
  Fixture f;
  ProxAdmmParams good;
  ProxAdmmParams bad[6] = {good, good, good, good, good, good};
  bad[0].lambda = 0;
  bad[1].lambda = 1.5;
  bad[2].step = -1;
  bad[3].clip = 0;
  bad[4].sigma = -0.1;
  bad[5].sigma = std::nan("");
  for (const ProxAdmmParams& p : bad) {
    EXPECT_EQ(f.step.Run(p, f.z, f.u, f.noise, f.delta).status(),
              Status::InvalidArgument());
  }
  f.z[3] = std::nan("");
  EXPECT_EQ(f.step.Run(good, f.z, f.u, f.noise, f.delta).status(),
            Status::InvalidArgument());
  ProxAdmmStep uninitialised;
  EXPECT_EQ(uninitialised.Run(good, f.u, f.u, f.noise, f.delta).status(),
            Status::FailedPrecondition());
}

TEST(ProxAdmmStepTest, InitRefusesATooSmallWorkspace) {
  testing::SyntheticData<1, kDim> data(7, true);
  DatasetView view = data.View();
  alignas(Workspace::kAlignment) std::byte memory[kWorkspace];
  Workspace ws(ByteSpan(memory, kWorkspace / 2));
  ProxAdmmStep step;
  Loss loss;
  loss.kind = LossKind::kSquared;
  EXPECT_EQ(step.Init(ws, view, loss), Status::ResourceExhausted());
}

}  // namespace
}  // namespace edgeadmm
