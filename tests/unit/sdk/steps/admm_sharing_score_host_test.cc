// admm-sharing's scoring phase on the device (docs/privacy.md,
// "admm-sharing: the partial scores"): AdmmSharingStep::ScoreBlock is
// D_test x̃ exactly (or plus N(0, σ_s²)), and LocalTrainer::RunAdmmSharing
// with a scoring phase appends the partial scores of the final x̃_m(T) to
// the share, charges one Gaussian whose RDP is the sum of the share's and
// the scores' (ratio √((Δ/σ)² + (Δ_s/σ_s)²)), and refuses an exact
// (uncovered) score unless unaccounted steps are allowed.
#include <cmath>
#include <limits>
#include <vector>

#include "edgeadmm/admm_sharing_step.h"
#include "edgeadmm/dataset_view.h"
#include "edgeadmm/device_privacy_ledger.h"
#include "edgeadmm/drbg.h"
#include "edgeadmm/fake/test_entropy.h"
#include "edgeadmm/local_steps.h"
#include "edgeadmm/share_noise_stream.h"
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
  // `outlier`: record 4 and test record 2 are 40 times the others and u, y
  // 10 times larger, so the share and the scores leave a small clip; the
  // budget is then +inf (nearly noiseless steps are beyond the reportable
  // ε cap).
  explicit Party(bool allow_unaccounted, bool outlier = false) {
    const double scale = outlier ? 10 : 1;
    for (size_t i = 0; i < kN; ++i) {
      u[i] = scale * 0.3 * std::cos(double(i));
      y[i] = -scale * 0.05 * std::sin(double(i));
    }
    for (size_t j = 0; outlier && j < kP; ++j) {
      d[4 * kP + j] *= 40;
      test[2 * kP + j] *= 40;
    }
    auto view =
        DatasetView::Create(Span<const Real>(d.data(), d.size()),
                            Span<const Real>(labels.data(), kN), kN, kP);
    EXPECT_TRUE(view.ok());
    memory.resize(LocalStepWorkspaceBytes(AlgorithmKind::kAdmmSharing,
                                          LossKind::kLogistic, kN, kP));
    TrainerConfig config;
    config.algorithm = AlgorithmKind::kAdmmSharing;
    config.job_id = 3;
    config.entropy = &entropy;
    config.epsilon_budget =
        outlier ? std::numeric_limits<Real>::infinity() : 1e6;
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
  DiscreteGaussianSampler sampler(drbg);
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
  DiscreteGaussianSampler sampler(drbg);
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
  ASSERT_TRUE(
      RunAdmmSharing(scored.trainer, Rigorous(), score, 1,
                     Span<const Real>(scored.u.data(), kN),
                     Span<const Real>(scored.y.data(), kN),
                     Span<const Real>(scored.test.data(), scored.test.size()),
                     Span<Real>(upload.data(), upload.size()))
          .ok());
  std::vector<Real> share(kN);
  ASSERT_TRUE(RunAdmmSharing(plain.trainer, Rigorous(), 1,
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
  EXPECT_EQ(
      RunAdmmSharing(strict.trainer, Rigorous(), exact, 1,
                     Span<const Real>(strict.u.data(), kN),
                     Span<const Real>(strict.y.data(), kN),
                     Span<const Real>(strict.test.data(), strict.test.size()),
                     Span<Real>(upload.data(), upload.size()))
          .status(),
      Status::FailedPrecondition());
  Party allowed(true);
  ASSERT_TRUE(
      RunAdmmSharing(allowed.trainer, Rigorous(), exact, 1,
                     Span<const Real>(allowed.u.data(), kN),
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
  EXPECT_EQ(RunAdmmSharing(wrong.trainer, Rigorous(), exact, 1,
                           Span<const Real>(wrong.u.data(), kN),
                           Span<const Real>(wrong.y.data(), kN),
                           Span<const Real>(wrong.test.data(), kP),
                           Span<Real>(upload.data(), upload.size()))
                .status(),
            Status::InvalidArgument());
}

// Bounded shares (docs/privacy.md, "Bounded shares"; issue 31 item 4): a
// rigorous party clips x̃_m so that its noiseless share has
// ||D_m x̃_m||₂ ≤ C = Δ/2 and gaussian partial scores ||D_test,m x̃_m||₂ ≤
// C_s = Δ_s/2, so the Δ its ledger charges holds under any change of its
// data. The first three tests fail without the clip: measured with it
// removed, the outlier party uploads a share of norm 1.206 against
// C = 0.05, and scores of norm 3.02 against C_s = 0.01.
constexpr Real kDelta = 0.1;   // the share's Δ: clip C = 0.05
constexpr Real kSigma = 1e-4;  // noise far below the bound

double Norm(const Real* v, size_t n) {
  double s = 0;
  for (size_t i = 0; i < n; ++i) s += double(v[i]) * double(v[i]);
  return std::sqrt(s);
}

// ||rows·x||₂ for `rows` (n x kP, row-major).
double ProductNorm(const std::vector<Real>& rows, Span<const Real> x) {
  std::vector<Real> out(rows.size() / kP);
  for (size_t i = 0; i < out.size(); ++i) {
    for (size_t j = 0; j < kP; ++j) out[i] += rows[i * kP + j] * x[j];
  }
  return Norm(out.data(), out.size());
}

// The share the step computes without any clip (what the old code sent).
double UnclippedShareNorm(Party& party) {
  std::vector<std::byte> ws_memory(AdmmSharingStep::WorkspaceBytes(kP));
  Workspace ws(ByteSpan(ws_memory.data(), ws_memory.size()));
  AdmmSharingStep step;
  EXPECT_TRUE(step.Init(ws, Span<const Real>(party.d.data(), party.d.size()),
                        kN, kP, 0.1, 0.5)
                  .ok());
  EXPECT_TRUE(step.BeginRound().ok());
  const std::vector<Real> zeros(kN);
  EXPECT_TRUE(step.AccumulateBlock(0, Span<const Real>(party.y.data(), kN),
                                   Span<const Real>(party.u.data(), kN),
                                   Span<const Real>(zeros.data(), kN))
                  .ok());
  Drbg drbg;
  TestEntropy e(3);
  EXPECT_TRUE(drbg.Init(e, ConstByteSpan()).ok());
  DiscreteGaussianSampler sampler(drbg);
  SharingNoiseParams none;
  EXPECT_TRUE(step.Solve(none, sampler).ok());
  return ProductNorm(party.d, step.x_tilde());
}

SharingTaskParams ClipRigorous() {
  SharingTaskParams p = Rigorous();
  p.noise.sigma = kSigma;
  p.sensitivity = kDelta;
  return p;
}

TEST(AdmmSharingClipTest, TheUploadedShareStaysWithinHalfTheChargedDelta) {
  Party party(false, true);
  // Without the clip the share is far above C = Δ/2 (what the old code
  // uploaded, noise aside).
  EXPECT_GT(UnclippedShareNorm(party), 10 * kDelta / 2);
  std::vector<Real> share(kN);
  auto report = RunAdmmSharing(
      party.trainer, ClipRigorous(), 1, Span<const Real>(party.u.data(), kN),
      Span<const Real>(party.y.data(), kN), Span<Real>(share.data(), kN));
  ASSERT_TRUE(report.ok()) << int(report.status().code());
  EXPECT_LT(report->clip_factor, 1);
  // The upload (share + noise of σ = 1e-9) is within C plus the noise.
  EXPECT_LE(Norm(share.data(), kN), kDelta / 2 + 6 * kSigma * std::sqrt(kN));
  // And the persisted x̃ (from which a streamed or resent share is
  // recomputed) gives a noiseless share within C.
  EXPECT_LE(ProductNorm(party.d, party.trainer.state().primary), kDelta / 2);
  EXPECT_GT(ProductNorm(party.d, party.trainer.state().primary),
            0.999 * kDelta / 2);  // clipped to the bound, not beyond
}

TEST(AdmmSharingClipTest, AStreamingPartyClipsTheModelItsRowsComeFrom) {
  Party party(false, true);
  ASSERT_TRUE(BeginSharingStream(party.trainer, 1).ok());
  const std::vector<Real> zeros(kN);
  const Span<const Real> z(zeros.data(), kN);
  ASSERT_TRUE(AccumulateSharingStream(party.trainer,
                                      AdmmSharingStep::Vector::kModel, 0,
                                      Span<const Real>(party.u.data(), kN), z)
                  .ok());
  ASSERT_TRUE(AccumulateSharingStream(party.trainer,
                                      AdmmSharingStep::Vector::kAuxiliary, 0,
                                      Span<const Real>(party.y.data(), kN), z)
                  .ok());
  std::byte key[ShareNoiseStream::kKeyBytes];
  auto report =
      FinishSharingStream(party.trainer, ClipRigorous(), nullptr, 1,
                          Span<const Real>(), ByteSpan(key, sizeof(key)));
  ASSERT_TRUE(report.ok()) << int(report.status().code());
  EXPECT_LT(report->clip_factor, 1);
  EXPECT_LE(ProductNorm(party.d, party.trainer.state().primary), kDelta / 2);
}

TEST(AdmmSharingClipTest, GaussianScoresStayWithinHalfTheirDelta) {
  Party party(false, true);
  SharingTaskParams loose = ClipRigorous();
  loose.sensitivity = 1e6;  // the share's clip does not bind
  SharingScoreParams score;
  score.sigma = kSigma;
  score.sensitivity = 0.02;  // C_s = 0.01
  std::vector<Real> upload(kN + kK);
  auto report = RunAdmmSharing(
      party.trainer, loose, score, 1, Span<const Real>(party.u.data(), kN),
      Span<const Real>(party.y.data(), kN),
      Span<const Real>(party.test.data(), party.test.size()),
      Span<Real>(upload.data(), upload.size()));
  ASSERT_TRUE(report.ok()) << int(report.status().code());
  EXPECT_LT(report->clip_factor, 1);
  EXPECT_LE(Norm(upload.data() + kN, kK), 0.01 + 6 * kSigma * std::sqrt(kK));
  EXPECT_LE(ProductNorm(party.test, party.trainer.state().primary), 0.01);
}

TEST(AdmmSharingClipTest, ALooseClipChangesNothing) {
  Party clipped(false, true);
  Party loose_party(false, true);
  SharingTaskParams loose = ClipRigorous();
  loose.sensitivity = 1e6;
  std::vector<Real> share(kN);
  auto report = RunAdmmSharing(
      loose_party.trainer, loose, 1, Span<const Real>(loose_party.u.data(), kN),
      Span<const Real>(loose_party.y.data(), kN), Span<Real>(share.data(), kN));
  ASSERT_TRUE(report.ok()) << int(report.status().code());
  EXPECT_EQ(report->clip_factor, 1);
  EXPECT_NEAR(ProductNorm(loose_party.d, loose_party.trainer.state().primary),
              UnclippedShareNorm(clipped), 1e-12);
}

TEST(AdmmSharingClipTest, TheLedgerChargesTheDeltaTheClipEnforces) {
  Party party(false, true);
  std::vector<Real> share(kN);
  SharingTaskParams p = ClipRigorous();
  p.noise.sigma = 0.4;
  ASSERT_TRUE(RunAdmmSharing(party.trainer, p, 1,
                             Span<const Real>(party.u.data(), kN),
                             Span<const Real>(party.y.data(), kN),
                             Span<Real>(share.data(), kN))
                  .ok());
  DevicePrivacyLedger expected;
  ASSERT_TRUE(expected.Charge(kDelta, 0.4).ok());
  auto eps = party.trainer.LocalEpsilon();
  ASSERT_TRUE(eps.ok());
  EXPECT_NEAR(*eps, *expected.Epsilon(1e-5), 1e-12);
}

TEST(AdmmSharingClipTest, ClipModelRefusesABadClip) {
  Party party(false, true);
  std::vector<std::byte> ws_memory(AdmmSharingStep::WorkspaceBytes(kP));
  Workspace ws(ByteSpan(ws_memory.data(), ws_memory.size()));
  AdmmSharingStep step;
  EXPECT_EQ(step.ClipModel(SharingClip{1, 0}, Span<const Real>()).status(),
            Status::FailedPrecondition());
  ASSERT_TRUE(step.Init(ws, Span<const Real>(party.d.data(), party.d.size()),
                        kN, kP, 0.1, 0.5)
                  .ok());
  EXPECT_EQ(step.ClipModel(SharingClip{-1, 0}, Span<const Real>()).status(),
            Status::InvalidArgument());
  EXPECT_EQ(step.ClipModel(SharingClip{1, NAN}, Span<const Real>()).status(),
            Status::InvalidArgument());
  // x̃ = 0 at Init: nothing to clip.
  auto f = step.ClipModel(SharingClip{1, 1}, Span<const Real>());
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(*f, 1);
}

}  // namespace
}  // namespace edgeadmm
