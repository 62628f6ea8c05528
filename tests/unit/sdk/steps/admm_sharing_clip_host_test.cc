// Bounded shares (docs/privacy.md, "Bounded shares"; issue 31 item 4): a
// rigorous party clips x̃_m so that its noiseless share has
// ||D_m x̃_m||₂ ≤ C = Δ/2 and gaussian partial scores ||D_test,m x̃_m||₂ ≤
// C_s = Δ_s/2, so the Δ its ledger charges holds under any change of its
// data. Before the clip, a party with one large record uploaded a share
// far above the bound (the first three tests fail on that code: measured
// with the clip removed, the uploaded share's norm is 1.206 against
// C = 0.05, the scores' 3.02 against C_s = 0.01).
#include <cmath>
#include <limits>
#include <vector>

#include "edgeadmm/admm_sharing_step.h"
#include "edgeadmm/dataset_view.h"
#include "edgeadmm/drbg.h"
#include "edgeadmm/device_privacy_ledger.h"
#include "edgeadmm/fake/test_entropy.h"
#include "edgeadmm/local_trainer.h"
#include "edgeadmm/share_noise_stream.h"
#include "gtest/gtest.h"

namespace edgeadmm {
namespace {

constexpr size_t kN = 12;  // training records
constexpr size_t kK = 5;   // test records
constexpr size_t kP = 3;   // the party's columns
constexpr Real kDelta = 0.1;   // the share's Δ: clip C = 0.05
constexpr Real kSigma = 1e-4;  // noise far below the bound

std::vector<Real> Matrix(size_t rows, double phase) {
  std::vector<Real> m(rows * kP);
  for (size_t i = 0; i < m.size(); ++i) {
    m[i] = 0.5 * std::sin(phase + 0.7 * double(i));
  }
  return m;
}

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

// A party whose record 4 is 40 times the others: its share entry (and the
// whole share, through x̃_m) would leave the bound.
struct Party {
  std::vector<Real> d = Matrix(kN, 1.0);
  std::vector<Real> labels = std::vector<Real>(kN, 1.0);
  std::vector<Real> test = Matrix(kK, 4.0);
  std::vector<Real> u = std::vector<Real>(kN);
  std::vector<Real> y = std::vector<Real>(kN);
  std::vector<std::byte> memory;
  TestEntropy entropy{11};
  LocalTrainer trainer;
  Party() {
    for (size_t j = 0; j < kP; ++j) d[4 * kP + j] *= 40;
    for (size_t j = 0; j < kP; ++j) test[2 * kP + j] *= 40;
    for (size_t i = 0; i < kN; ++i) {
      u[i] = 3 * std::cos(double(i));
      y[i] = -0.5 * std::sin(double(i));
    }
    auto view =
        DatasetView::Create(Span<const Real>(d.data(), d.size()),
                            Span<const Real>(labels.data(), kN), kN, kP);
    EXPECT_TRUE(view.ok());
    memory.resize(LocalTrainer::WorkspaceBytes(AlgorithmKind::kAdmmSharing,
                                               LossKind::kLogistic, kN, kP));
    TrainerConfig config;
    config.algorithm = AlgorithmKind::kAdmmSharing;
    config.job_id = 5;
    config.entropy = &entropy;
    // ε beyond the reportable cap is +inf: only an infinite budget takes
    // these nearly noiseless steps.
    config.epsilon_budget = std::numeric_limits<Real>::infinity();
    EXPECT_TRUE(
        trainer.Init(ByteSpan(memory.data(), memory.size()), *view, config)
            .ok());
  }
  // The share the step computes without any clip (what the old code sent).
  double UnclippedShareNorm() {
    std::vector<std::byte> ws_memory(AdmmSharingStep::WorkspaceBytes(kP));
    Workspace ws(ByteSpan(ws_memory.data(), ws_memory.size()));
    AdmmSharingStep step;
    EXPECT_TRUE(
        step.Init(ws, Span<const Real>(d.data(), d.size()), kN, kP, 0.1, 0.5)
            .ok());
    EXPECT_TRUE(step.BeginRound().ok());
    const std::vector<Real> zeros(kN);
    EXPECT_TRUE(step.AccumulateBlock(0, Span<const Real>(y.data(), kN),
                                     Span<const Real>(u.data(), kN),
                                     Span<const Real>(zeros.data(), kN))
                    .ok());
    Drbg drbg;
    TestEntropy e(3);
    EXPECT_TRUE(drbg.Init(e, ConstByteSpan()).ok());
    GaussianSampler sampler(drbg);
    SharingNoiseParams none;
    EXPECT_TRUE(step.Solve(none, sampler).ok());
    return ProductNorm(d, step.x_tilde());
  }
};

SharingTaskParams Rigorous() {
  SharingTaskParams p;
  p.rho = 0.5;
  p.lambda = 0.1;
  p.noise.mode = SharingNoise::kRigorous;
  p.noise.sigma = kSigma;
  p.sensitivity = kDelta;
  return p;
}

TEST(AdmmSharingClipTest, TheUploadedShareStaysWithinHalfTheChargedDelta) {
  Party party;
  // Without the clip the share is far above C = Δ/2 (what the old code
  // uploaded, noise aside).
  EXPECT_GT(party.UnclippedShareNorm(), 10 * kDelta / 2);
  std::vector<Real> share(kN);
  auto report = party.trainer.RunAdmmSharing(
      Rigorous(), 1, Span<const Real>(party.u.data(), kN),
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
  Party party;
  ASSERT_TRUE(party.trainer.BeginSharingStream(1).ok());
  const std::vector<Real> zeros(kN);
  const Span<const Real> z(zeros.data(), kN);
  ASSERT_TRUE(party.trainer
                  .AccumulateSharingStream(AdmmSharingStep::Vector::kModel, 0,
                                           Span<const Real>(party.u.data(), kN),
                                           z)
                  .ok());
  ASSERT_TRUE(party.trainer
                  .AccumulateSharingStream(
                      AdmmSharingStep::Vector::kAuxiliary, 0,
                      Span<const Real>(party.y.data(), kN), z)
                  .ok());
  std::byte key[ShareNoiseStream::kKeyBytes];
  auto report = party.trainer.FinishSharingStream(
      Rigorous(), nullptr, 1, Span<const Real>(), ByteSpan(key, sizeof(key)));
  ASSERT_TRUE(report.ok()) << int(report.status().code());
  EXPECT_LT(report->clip_factor, 1);
  EXPECT_LE(ProductNorm(party.d, party.trainer.state().primary), kDelta / 2);
}

TEST(AdmmSharingClipTest, GaussianScoresStayWithinHalfTheirDelta) {
  Party party;
  SharingTaskParams loose = Rigorous();
  loose.sensitivity = 1e6;  // the share's clip does not bind
  SharingScoreParams score;
  score.sigma = kSigma;
  score.sensitivity = 0.02;  // C_s = 0.01
  std::vector<Real> upload(kN + kK);
  auto report = party.trainer.RunAdmmSharing(
      loose, score, 1, Span<const Real>(party.u.data(), kN),
      Span<const Real>(party.y.data(), kN),
      Span<const Real>(party.test.data(), party.test.size()),
      Span<Real>(upload.data(), upload.size()));
  ASSERT_TRUE(report.ok()) << int(report.status().code());
  EXPECT_LT(report->clip_factor, 1);
  EXPECT_LE(Norm(upload.data() + kN, kK), 0.01 + 6 * kSigma * std::sqrt(kK));
  EXPECT_LE(ProductNorm(party.test, party.trainer.state().primary), 0.01);
}

TEST(AdmmSharingClipTest, ALooseClipChangesNothing) {
  Party clipped;
  Party loose_party;
  SharingTaskParams loose = Rigorous();
  loose.sensitivity = 1e6;
  std::vector<Real> share(kN);
  auto report = loose_party.trainer.RunAdmmSharing(
      loose, 1, Span<const Real>(loose_party.u.data(), kN),
      Span<const Real>(loose_party.y.data(), kN),
      Span<Real>(share.data(), kN));
  ASSERT_TRUE(report.ok()) << int(report.status().code());
  EXPECT_EQ(report->clip_factor, 1);
  EXPECT_NEAR(ProductNorm(loose_party.d, loose_party.trainer.state().primary),
              clipped.UnclippedShareNorm(), 1e-12);
}

TEST(AdmmSharingClipTest, TheLedgerChargesTheDeltaTheClipEnforces) {
  Party party;
  std::vector<Real> share(kN);
  SharingTaskParams p = Rigorous();
  p.noise.sigma = 0.4;
  ASSERT_TRUE(party.trainer
                  .RunAdmmSharing(p, 1, Span<const Real>(party.u.data(), kN),
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
  Party party;
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
  EXPECT_EQ(
      step.ClipModel(SharingClip{1, NAN}, Span<const Real>()).status(),
      Status::InvalidArgument());
  // x̃ = 0 at Init: nothing to clip.
  auto f = step.ClipModel(SharingClip{1, 1}, Span<const Real>());
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(*f, 1);
}

}  // namespace
}  // namespace edgeadmm
