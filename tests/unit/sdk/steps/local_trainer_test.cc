#include <cmath>

#include "edgeadmm/fake/test_entropy.h"
#include "edgeadmm/local_steps.h"
#include "gtest/gtest.h"
#include "synthetic_data.h"

namespace edgeadmm {
namespace {

constexpr size_t kSamples = 16;
constexpr size_t kDim = 8;
using Trainer = StaticLocalTrainer<AlgorithmKind::kProxAdmm,
                                   LossKind::kLogistic, kSamples, kDim>;

struct Device {
  testing::SyntheticData<kSamples, kDim> data{11};
  DatasetView view = data.View();
  TestEntropy entropy{5};
  TrainerConfig config;
  Trainer trainer;
  Real z[kDim] = {};
  Real upload[kDim] = {};

  explicit Device(double budget = 10.0) {
    config.algorithm = AlgorithmKind::kProxAdmm;
    config.loss.kind = LossKind::kLogistic;
    config.job_id = 77;
    config.entropy = &entropy;
    config.epsilon_budget = budget;
    config.delta = 1e-5;
    EXPECT_TRUE(trainer.Init(view, config).ok());
  }
  LocalTrainer& t() { return trainer.trainer(); }
};

ProxAdmmParams PrivateParams() {
  ProxAdmmParams p;
  p.lambda = 0.5;
  p.step = 1.0;
  p.clip = 0.5;
  p.sigma = 4.0;
  return p;
}

TEST(LocalTrainerTest, InitNeedsExactlyTheAdvertisedWorkspace) {
  testing::SyntheticData<kSamples, kDim> data(11);
  DatasetView view = data.View();
  TestEntropy entropy(1);
  TrainerConfig config;
  config.algorithm = AlgorithmKind::kProxAdmm;
  config.entropy = &entropy;
  constexpr size_t kBytes = LocalStepWorkspaceBytes(
      AlgorithmKind::kProxAdmm, LossKind::kLogistic, kSamples, kDim);
  alignas(Workspace::kAlignment) static std::byte memory[kBytes];
  LocalTrainer trainer;
  EXPECT_EQ(trainer.Init(ByteSpan(memory, kBytes - 1), view, config),
            Status::ResourceExhausted());
  EXPECT_TRUE(trainer.Init(ByteSpan(memory, kBytes), view, config).ok());
  config.entropy = nullptr;
  EXPECT_EQ(trainer.Init(ByteSpan(memory, kBytes), view, config),
            Status::InvalidArgument());
}

TEST(LocalTrainerTest, RefusesTheStepThatWouldExceedTheLocalBudget) {
  // Budget = exactly the ε of three participations.
  DevicePrivacyLedger reference;
  const ProxAdmmParams params = PrivateParams();
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(
        reference.Charge(params.ReplaceOneSensitivity(kDim), params.NoiseStd())
            .ok());
  }
  // double: a float32 budget (Real on the Cortex-M4F) may round below it.
  const double budget = reference.Epsilon(1e-5).value();
  Device d(budget * (1 + 1e-12));
  for (uint64_t round = 0; round < 3; ++round) {
    ASSERT_TRUE(RunProxAdmm(d.t(), params, round, d.z, d.upload).ok()) << round;
  }
  Real u_before[kDim];
  for (size_t i = 0; i < kDim; ++i) u_before[i] = d.t().state().primary[i];
  EXPECT_EQ(RunProxAdmm(d.t(), params, 3, d.z, d.upload).status(),
            Status::ResourceExhausted());
  EXPECT_EQ(d.t().state().ledger.participations(), 3u);
  EXPECT_EQ(d.t().state().last_round, 2u);
  for (size_t i = 0; i < kDim; ++i) {
    EXPECT_EQ(d.t().state().primary[i], u_before[i]);
  }
  EXPECT_NEAR(d.t().LocalEpsilon().value(), budget, 1e-9);
}

TEST(LocalTrainerTest, AStepsNoiseComesFromItsOwnSeedingOnly) {
  // A trainer shared by devices (the fleet's): after a noisy step, Init for
  // another device must not carry the bytes the samplers buffered from the
  // first seeding into the next step's noise.
  Device shared;
  ASSERT_TRUE(
      RunProxAdmm(shared.t(), PrivateParams(), 1, shared.z, shared.upload)
          .ok());
  TestEntropy second(9);
  shared.config.entropy = &second;
  ASSERT_TRUE(shared.trainer.Init(shared.view, shared.config).ok());
  ASSERT_TRUE(
      RunProxAdmm(shared.t(), PrivateParams(), 1, shared.z, shared.upload)
          .ok());
  Device fresh;
  TestEntropy second_again(9);
  fresh.config.entropy = &second_again;
  ASSERT_TRUE(fresh.trainer.Init(fresh.view, fresh.config).ok());
  ASSERT_TRUE(
      RunProxAdmm(fresh.t(), PrivateParams(), 1, fresh.z, fresh.upload).ok());
  for (size_t i = 0; i < kDim; ++i)
    EXPECT_EQ(shared.upload[i], fresh.upload[i]);
}

TEST(LocalTrainerTest, NeverRecomputesARound) {
  Device d;
  ASSERT_TRUE(RunProxAdmm(d.t(), PrivateParams(), 5, d.z, d.upload).ok());
  EXPECT_EQ(RunProxAdmm(d.t(), PrivateParams(), 5, d.z, d.upload).status(),
            Status::AlreadyExists());
  EXPECT_EQ(RunProxAdmm(d.t(), PrivateParams(), 4, d.z, d.upload).status(),
            Status::AlreadyExists());
  EXPECT_TRUE(RunProxAdmm(d.t(), PrivateParams(), 6, d.z, d.upload).ok());
  EXPECT_EQ(d.t().state().ledger.participations(), 2u);
}

TEST(LocalTrainerTest, UnaccountedStepsNeedExplicitPermission) {
  Device d;
  ProxAdmmParams params = PrivateParams();
  params.sigma = 0;
  EXPECT_EQ(RunProxAdmm(d.t(), params, 0, d.z, d.upload).status(),
            Status::FailedPrecondition());
  params = PrivateParams();
  params.clip = kNoClip;
  EXPECT_EQ(RunProxAdmm(d.t(), params, 0, d.z, d.upload).status(),
            Status::FailedPrecondition());

  testing::SyntheticData<kSamples, kDim> data(11);
  DatasetView view = data.View();
  TestEntropy entropy(5);
  TrainerConfig config = d.config;
  config.entropy = &entropy;
  config.allow_unaccounted_steps = true;
  Trainer open;
  ASSERT_TRUE(open.Init(view, config).ok());
  EXPECT_TRUE(RunProxAdmm(open.trainer(), params, 0, d.z, d.upload).ok());
  EXPECT_EQ(open.trainer().state().ledger.participations(), 0u);
}

// A secure-aggregation round: the task's sigma is 0 and the encoder adds the
// device's noise after the step; the trainer checks and charges that
// mechanism in place of the runner's, for the next step only.
TEST(LocalTrainerTest, ASecureRoundChargesTheEncodersNoise) {
  Device d;
  ProxAdmmParams params = PrivateParams();
  params.sigma = 0;
  const double sensitivity = 80;
  const double noise_std = 60;
  d.t().ChargeNextStepAs(sensitivity, noise_std);
  ASSERT_TRUE(RunProxAdmm(d.t(), params, 0, d.z, d.upload).ok());
  const DevicePrivacyLedger& ledger = d.t().state().ledger;
  EXPECT_EQ(ledger.participations(), 1u);
  for (size_t i = 0; i < DevicePrivacyLedger::kOrderCount; ++i) {
    const double expected = DevicePrivacyLedger::kOrders[i] * sensitivity *
                            sensitivity / (2 * noise_std * noise_std);
    EXPECT_NEAR(ledger.rdp()[i], expected, 1e-12 * expected) << i;
  }
  // The next step is the runner's own again: sigma 0 is unaccounted.
  EXPECT_EQ(RunProxAdmm(d.t(), params, 1, d.z, d.upload).status(),
            Status::FailedPrecondition());

  // The charge is held against the budget before the step runs.
  Device tight(0.01);
  tight.t().ChargeNextStepAs(sensitivity, noise_std);
  EXPECT_EQ(RunProxAdmm(tight.t(), params, 0, tight.z, tight.upload).status(),
            Status::ResourceExhausted());
  EXPECT_EQ(tight.t().state().ledger.participations(), 0u);
}

// The seam: the trainer creates the runner's step in its workspace (no
// heap), refuses a runner of another algorithm than the config's, and a
// run function of another algorithm finds no step (FAILED_PRECONDITION).
TEST(LocalTrainerTest, TheRunnersStepLivesInTheWorkspaceAndIsItsAlgorithms) {
  testing::SyntheticData<kSamples, kDim> data(11);
  DatasetView view = data.View();
  TestEntropy entropy(1);
  TrainerConfig config;
  config.algorithm = AlgorithmKind::kProxAdmm;
  config.loss.kind = LossKind::kLogistic;
  config.entropy = &entropy;
  config.epsilon_budget = 10.0;
  constexpr size_t kBytes = LocalStepWorkspaceBytes(
      AlgorithmKind::kProxAdmm, LossKind::kLogistic, kSamples, kDim);
  alignas(Workspace::kAlignment) static std::byte memory[kBytes];
  LocalTrainer trainer;
  EXPECT_EQ(trainer.Init(kDpSgdRunner, ByteSpan(memory, kBytes), view, config),
            Status::InvalidArgument());
  EXPECT_EQ(trainer.StepObject(AlgorithmKind::kDpSgd), nullptr);
  ASSERT_TRUE(
      trainer.Init(kProxAdmmRunner, ByteSpan(memory, kBytes), view, config)
          .ok());
  const auto* step = static_cast<const std::byte*>(
      trainer.StepObject(AlgorithmKind::kProxAdmm));
  ASSERT_NE(step, nullptr);
  EXPECT_GE(step, memory);
  EXPECT_LE(step + sizeof(ProxAdmmStep), memory + kBytes);
  EXPECT_EQ(trainer.StepObject(AlgorithmKind::kDpSgd), nullptr);
  Real z[kDim] = {};
  Real upload[kDim] = {};
  DpSgdParams params;
  params.sigma = 1.0;
  EXPECT_EQ(RunDpSgd(trainer, params, 0, z, upload).status(),
            Status::FailedPrecondition());
  EXPECT_EQ(trainer.state().last_round, UINT64_MAX);  // nothing was run
  ProxAdmmParams prox;
  prox.lambda = 0.5;
  prox.step = 1.0;
  prox.clip = 0.5;
  prox.sigma = 4.0;
  EXPECT_TRUE(RunProxAdmm(trainer, prox, 0, z, upload).ok());
  EXPECT_EQ(trainer.state().last_round, 0u);
}

TEST(LocalTrainerTest, WrongAlgorithmOrShapeIsRefused) {
  Device d;
  DpSgdParams sgd;
  EXPECT_EQ(RunDpSgd(d.t(), sgd, 0, d.z, d.upload).status(),
            Status::FailedPrecondition());
  Real short_upload[kDim - 1];
  EXPECT_EQ(RunProxAdmm(d.t(), PrivateParams(), 0, d.z,
                        Span<Real>(short_upload, kDim - 1))
                .status(),
            Status::InvalidArgument());
}

TEST(LocalTrainerTest, StateSurvivesARebootButNotAJobChange) {
  Device d;
  for (uint64_t round = 0; round < 4; ++round) {
    ASSERT_TRUE(RunProxAdmm(d.t(), PrivateParams(), round, d.z, d.upload).ok());
  }
  static std::byte blob[LocalTrainer::StateBytes(kDim)];
  auto saved = d.t().SaveState(ByteSpan(blob, sizeof(blob)));
  ASSERT_TRUE(saved.ok());

  Device rebooted;
  ASSERT_TRUE(rebooted.t().LoadState(ConstByteSpan(blob, saved.size())).ok());
  EXPECT_EQ(rebooted.t().state().last_round, 3u);
  EXPECT_EQ(rebooted.t().state().ledger.participations(), 4u);
  for (size_t i = 0; i < kDim; ++i) {
    EXPECT_EQ(rebooted.t().state().primary[i], d.t().state().primary[i]);
  }
  EXPECT_DOUBLE_EQ(rebooted.t().LocalEpsilon().value(),
                   d.t().LocalEpsilon().value());
  EXPECT_EQ(
      RunProxAdmm(rebooted.t(), PrivateParams(), 3, d.z, d.upload).status(),
      Status::AlreadyExists());

  Device other_job;
  other_job.config.job_id = 78;
  testing::SyntheticData<kSamples, kDim> data(11);
  DatasetView view = data.View();
  TestEntropy entropy(9);
  other_job.config.entropy = &entropy;
  Trainer fresh;
  ASSERT_TRUE(fresh.Init(view, other_job.config).ok());
  EXPECT_EQ(fresh.trainer().LoadState(ConstByteSpan(blob, saved.size())),
            Status::FailedPrecondition());
  for (size_t i = 0; i < kDim; ++i) {
    EXPECT_EQ(fresh.trainer().state().primary[i], 0.0);
  }
}

}  // namespace
}  // namespace edgeadmm
