// admm-sharing's scoring phase on the device (docs/privacy.md,
// "admm-sharing: the partial scores"): AdmmSharingStep::ScoreBlock is
// D_test x̃ exactly (or plus N(0, σ_s²)), and LocalTrainer::RunAdmmSharing
// with a scoring phase appends the partial scores of the final x̃_m(T) to
// the share, charges one Gaussian whose RDP is the sum of the share's and
// the scores' (ratio √((Δ/σ)² + (Δ_s/σ_s)²)), and refuses an exact
// (uncovered) score unless unaccounted steps are allowed.
#include <cmath>
#include <vector>

#include "edgeadmm/admm_sharing_step.h"
#include "edgeadmm/dataset_view.h"
#include "edgeadmm/device_privacy_ledger.h"
#include "edgeadmm/drbg.h"
#include "edgeadmm/fake/test_entropy.h"
#include "edgeadmm/local_trainer.h"
#include "gtest/gtest.h"

namespace edgeadmm {
namespace {

constexpr size_t kN = 12;  // training records
constexpr size_t kK = 5;   // test records
constexpr size_t kP = 3;   // the party's columns

std::vector<Real> Matrix(size_t rows, double phase) {
  std::vector<Real> m(rows * kP);
  for (size_t i = 0; i < m.size(); ++i) {
    m[i] = 0.5 * std::sin(phase + 0.7 * double(i));
  }
  return m;
}

struct Party {
  std::vector<Real> d = Matrix(kN, 1.0);
  std::vector<Real> labels = std::vector<Real>(kN, 1.0);
  std::vector<Real> test = Matrix(kK, 4.0);
  std::vector<Real> u = std::vector<Real>(kN);
  std::vector<Real> y = std::vector<Real>(kN);
  std::vector<std::byte> memory;
  TestEntropy entropy{7};
  LocalTrainer trainer;
  Party(bool allow_unaccounted) {
    for (size_t i = 0; i < kN; ++i) {
      u[i] = 0.3 * std::cos(double(i));
      y[i] = -0.05 * std::sin(double(i));
    }
    auto view =
        DatasetView::Create(Span<const Real>(d.data(), d.size()),
                            Span<const Real>(labels.data(), kN), kN, kP);
    EXPECT_TRUE(view.ok());
    memory.resize(LocalTrainer::WorkspaceBytes(AlgorithmKind::kAdmmSharing,
                                               LossKind::kLogistic, kN, kP));
    TrainerConfig config;
    config.algorithm = AlgorithmKind::kAdmmSharing;
    config.job_id = 3;
    config.entropy = &entropy;
    config.epsilon_budget = 1e6;
    config.allow_unaccounted_steps = allow_unaccounted;
    EXPECT_TRUE(
        trainer.Init(ByteSpan(memory.data(), memory.size()), *view, config)
            .ok());
  }
};

SharingTaskParams Rigorous() {
  SharingTaskParams p;
  p.rho = 0.5;
  p.lambda = 0.1;
  p.noise.mode = SharingNoise::kRigorous;
  p.noise.sigma = 0.2;
  p.sensitivity = 0.1;
  return p;
}

TEST(AdmmSharingScoreTest, ScoreBlockIsTheTestBlockTimesXTilde) {
  const std::vector<Real> d = Matrix(kN, 1.0);
  const std::vector<Real> test = Matrix(kK, 4.0);
  std::vector<std::byte> memory(AdmmSharingStep::WorkspaceBytes(kP));
  Workspace ws(ByteSpan(memory.data(), memory.size()));
  AdmmSharingStep step;
  ASSERT_TRUE(
      step.Init(ws, Span<const Real>(d.data(), d.size()), kN, kP, 0.1, 0.5)
          .ok());
  const Real x[kP] = {0.4, -1.25, 2.0};
  ASSERT_TRUE(step.SetModel(Span<const Real>(x, kP)).ok());
  TestEntropy entropy(1);
  Drbg drbg;
  ASSERT_TRUE(drbg.Init(entropy, ConstByteSpan()).ok());
  GaussianSampler sampler(drbg);
  SharingScoreParams exact;
  exact.noise = SharingScoreNoise::kExact;
  std::vector<Real> out(kK);
  ASSERT_TRUE(step.ScoreBlock(Span<const Real>(test.data(), test.size()), exact,
                              sampler, Span<Real>(out.data(), kK))
                  .ok());
  for (size_t i = 0; i < kK; ++i) {
    double t = 0;
    for (size_t j = 0; j < kP; ++j) t += test[i * kP + j] * x[j];
    EXPECT_NEAR(out[i], t, 1e-14) << i;
  }
  // A test block of the wrong width, a non-finite value, bad params.
  EXPECT_EQ(step.ScoreBlock(Span<const Real>(test.data(), test.size() - 1),
                            exact, sampler, Span<Real>(out.data(), kK)),
            Status::InvalidArgument());
  std::vector<Real> bad = test;
  bad[4] = std::nan("");
  EXPECT_EQ(step.ScoreBlock(Span<const Real>(bad.data(), bad.size()), exact,
                            sampler, Span<Real>(out.data(), kK)),
            Status::InvalidArgument());
  SharingScoreParams gaussian_without_sigma;
  gaussian_without_sigma.sensitivity = 1;
  EXPECT_EQ(step.ScoreBlock(Span<const Real>(test.data(), test.size()),
                            gaussian_without_sigma, sampler,
                            Span<Real>(out.data(), kK)),
            Status::InvalidArgument());
}

TEST(AdmmSharingScoreTest, GaussianScoresHaveVarianceSigmaSquared) {
  const std::vector<Real> d = Matrix(kN, 1.0);
  constexpr size_t kRows = 4000;
  std::vector<Real> test(kRows * kP, 0.0);  // D_test = 0: pure noise
  std::vector<std::byte> memory(AdmmSharingStep::WorkspaceBytes(kP));
  Workspace ws(ByteSpan(memory.data(), memory.size()));
  AdmmSharingStep step;
  ASSERT_TRUE(
      step.Init(ws, Span<const Real>(d.data(), d.size()), kN, kP, 0.1, 0.5)
          .ok());
  TestEntropy entropy(2);
  Drbg drbg;
  ASSERT_TRUE(drbg.Init(entropy, ConstByteSpan()).ok());
  GaussianSampler sampler(drbg);
  SharingScoreParams g;
  g.sigma = 0.3;
  g.sensitivity = 0.1;
  std::vector<Real> out(kRows);
  ASSERT_TRUE(step.ScoreBlock(Span<const Real>(test.data(), test.size()), g,
                              sampler, Span<Real>(out.data(), kRows))
                  .ok());
  double sum = 0, sq = 0;
  for (Real v : out) {
    sum += v;
    sq += v * v;
  }
  const double var = sq / kRows - (sum / kRows) * (sum / kRows);
  // σ² = 0.09; the sample variance's sd is σ²√(2/n) ≈ 0.002.
  EXPECT_NEAR(var, 0.09, 0.01);
  EXPECT_NEAR(sum / kRows, 0.0, 0.03);
}

TEST(AdmmSharingScoreTest, TrainerAppendsScoresOfTheFinalModelAndChargesBoth) {
  Party scored(false);
  Party plain(false);
  SharingScoreParams score;
  score.sigma = 0.5;
  score.sensitivity = 0.2;
  std::vector<Real> upload(kN + kK);
  ASSERT_TRUE(scored.trainer
                  .RunAdmmSharing(
                      Rigorous(), score, 1,
                      Span<const Real>(scored.u.data(), kN),
                      Span<const Real>(scored.y.data(), kN),
                      Span<const Real>(scored.test.data(), scored.test.size()),
                      Span<Real>(upload.data(), upload.size()))
                  .ok());
  std::vector<Real> share(kN);
  ASSERT_TRUE(plain.trainer
                  .RunAdmmSharing(Rigorous(), 1,
                                  Span<const Real>(plain.u.data(), kN),
                                  Span<const Real>(plain.y.data(), kN),
                                  Span<Real>(share.data(), kN))
                  .ok());
  // Same x̃ (the scoring changes nothing before it); the scores are
  // D_test x̃ plus noise of σ_s = 0.5 (within 6σ_s each).
  const Span<const Real> x = scored.trainer.state().primary;
  for (size_t j = 0; j < kP; ++j) {
    EXPECT_EQ(x[j], plain.trainer.state().primary[j]);
  }
  for (size_t i = 0; i < kK; ++i) {
    double t = 0;
    for (size_t j = 0; j < kP; ++j) t += scored.test[i * kP + j] * x[j];
    EXPECT_NEAR(upload[kN + i], t, 6 * 0.5) << i;
    EXPECT_NE(upload[kN + i], t);  // noise was added
  }
  // One charge of ratio √((0.1/0.2)² + (0.2/0.5)²) = √0.41.
  DevicePrivacyLedger expected;
  ASSERT_TRUE(expected.Charge(std::sqrt(0.41), 1).ok());
  auto eps = scored.trainer.LocalEpsilon();
  ASSERT_TRUE(eps.ok());
  auto want = expected.Epsilon(1e-5);
  ASSERT_TRUE(want.ok());
  EXPECT_NEAR(*eps, *want, 1e-12);
  DevicePrivacyLedger share_only;
  ASSERT_TRUE(share_only.Charge(0.1, 0.2).ok());
  auto plain_eps = plain.trainer.LocalEpsilon();
  ASSERT_TRUE(plain_eps.ok());
  EXPECT_NEAR(*plain_eps, *share_only.Epsilon(1e-5), 1e-12);
  EXPECT_GT(*eps, *plain_eps);
}

TEST(AdmmSharingScoreTest, ExactScoresAreExactAndNeedUnaccountedSteps) {
  SharingScoreParams exact;
  exact.noise = SharingScoreNoise::kExact;
  std::vector<Real> upload(kN + kK);
  Party strict(false);
  EXPECT_EQ(strict.trainer
                .RunAdmmSharing(
                    Rigorous(), exact, 1, Span<const Real>(strict.u.data(), kN),
                    Span<const Real>(strict.y.data(), kN),
                    Span<const Real>(strict.test.data(), strict.test.size()),
                    Span<Real>(upload.data(), upload.size()))
                .status(),
            Status::FailedPrecondition());
  Party allowed(true);
  ASSERT_TRUE(
      allowed.trainer
          .RunAdmmSharing(
              Rigorous(), exact, 1, Span<const Real>(allowed.u.data(), kN),
              Span<const Real>(allowed.y.data(), kN),
              Span<const Real>(allowed.test.data(), allowed.test.size()),
              Span<Real>(upload.data(), upload.size()))
          .ok());
  const Span<const Real> x = allowed.trainer.state().primary;
  for (size_t i = 0; i < kK; ++i) {
    double t = 0;
    for (size_t j = 0; j < kP; ++j) t += allowed.test[i * kP + j] * x[j];
    EXPECT_NEAR(upload[kN + i], t, 1e-14) << i;
  }
  // A test block that does not fit the score vector is refused.
  Party wrong(true);
  EXPECT_EQ(wrong.trainer
                .RunAdmmSharing(Rigorous(), exact, 1,
                                Span<const Real>(wrong.u.data(), kN),
                                Span<const Real>(wrong.y.data(), kN),
                                Span<const Real>(wrong.test.data(), kP),
                                Span<Real>(upload.data(), upload.size()))
                .status(),
            Status::InvalidArgument());
}

}  // namespace
}  // namespace edgeadmm
