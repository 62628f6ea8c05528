// The admm-sharing releases on the exact grid (docs/privacy.md, "Bounded
// shares"): the integers a share is released on stay within C = Δ/2 after
// ClipModel, on an adversarial share whose rounding would otherwise carry it
// above C; the scores are guarded before any noise is drawn; the released
// value is g·(r + k) with k the keyed stream's integer.
#include <cmath>
#include <cstdint>
#include <vector>

#include "edgeadmm/admm_sharing_step.h"
#include "edgeadmm/drbg.h"
#include "edgeadmm/fake/test_entropy.h"
#include "edgeadmm/grid_gaussian.h"
#include "edgeadmm/share_noise_stream.h"
#include "gtest/gtest.h"

namespace edgeadmm {
namespace {

// N equal rows of one feature: every share entry is x̃. With σ = 1 (grid
// g = 2^-10) and C = √N·100.75·g, a real share clipped to C has entries of
// 100.75·g (less 64ε), which round up to 101: g·‖r‖ = √N·101·g > C.
constexpr size_t kN = 64;
constexpr Real kSigma = 1;
const Real kGrid = std::ldexp(Real(1), -static_cast<int>(kNoiseGridBits));
const Real kClip = 8 * Real(100.75) * kGrid;  // √64 = 8

struct Party {
  std::vector<Real> d = std::vector<Real>(kN, 1.0);
  std::vector<std::byte> memory =
      std::vector<std::byte>(AdmmSharingStep::WorkspaceBytes(1));
  Workspace ws{ByteSpan(memory.data(), memory.size())};
  AdmmSharingStep step;
  std::byte key[ShareNoiseStream::kKeyBytes] = {};

  Party() {
    EXPECT_TRUE(
        step.Init(ws, Span<const Real>(d.data(), kN), kN, 1, 0.1, 0.5).ok());
    const Real adversarial = 5;  // far above C/√N
    EXPECT_TRUE(step.SetModel(Span<const Real>(&adversarial, 1)).ok());
    for (size_t i = 0; i < sizeof(key); ++i) key[i] = std::byte(i * 13 + 1);
  }

  // Σ r_i² of the released share, r_i = round(s_i/g) − k_i recovered with
  // the key's integers k_i.
  uint64_t ReleasedSquares() const {
    SharingNoiseParams noise;
    noise.mode = SharingNoise::kRigorous;
    noise.sigma = kSigma;
    std::vector<Real> out(kN);
    EXPECT_TRUE(step.ShareBlock(0, noise, ConstByteSpan(key, sizeof(key)),
                                Span<Real>(out.data(), kN))
                    .ok());
    ShareNoiseStream stream;
    EXPECT_TRUE(stream.Open(ConstByteSpan(key, sizeof(key)), 0).ok());
    uint64_t sum = 0;
    for (size_t i = 0; i < kN; ++i) {
      const double n = std::round(double(out[i]) / double(kGrid));
      EXPECT_EQ(double(out[i]), n * double(kGrid)) << "on the grid, row " << i;
      const Result<int64_t> k = stream.Next();
      EXPECT_TRUE(k.ok());
      const int64_t r = int64_t(n) - *k;
      sum += uint64_t(r * r);
    }
    return sum;
  }
};

TEST(AdmmSharingGridTest, TheReleasedGridShareStaysWithinC) {
  const Result<uint64_t> k = GridBallBound(kClip, kSigma);
  ASSERT_TRUE(k.ok());
  // ⌊(8·100.75)²⌋ − 1: C/g = 806 is taken one ulp low (rounded down).
  EXPECT_EQ(*k, 649635u);
  // A clip of the real share alone (no σ: the clip before the grid) leaves
  // integers above C: the adversarial input is real.
  Party plain;
  ASSERT_TRUE(
      plain.step.ClipModel(SharingClip{kClip, 0, 0, 0}, Span<const Real>())
          .ok());
  EXPECT_EQ(plain.ReleasedSquares(), 64u * 101 * 101);
  EXPECT_GT(plain.ReleasedSquares(), *k);
  // ClipModel with the share's σ bounds the integers themselves.
  Party party;
  const Result<Real> factor = party.step.ClipModel(
      SharingClip{kClip, 0, kSigma, 0}, Span<const Real>());
  ASSERT_TRUE(factor.ok());
  EXPECT_LT(*factor, 1);
  const uint64_t squares = party.ReleasedSquares();
  EXPECT_LE(squares, *k);
  EXPECT_LE(std::sqrt(double(squares)) * double(kGrid), double(kClip));
  // Not shrunk further than the rounding needs: entries of 100 grid steps.
  EXPECT_EQ(squares, 64u * 100 * 100);
}

TEST(AdmmSharingGridTest, ScoresAboveTheirClipAreRefusedBeforeAnyNoise) {
  Party party;
  const std::vector<Real> test(4, 1.0);  // 4 test rows of one feature
  SharingScoreParams score;
  score.sigma = kSigma;
  score.sensitivity = 2 * kClip;
  TestEntropy entropy(5);
  Drbg drbg;
  ASSERT_TRUE(drbg.Init(entropy, ConstByteSpan()).ok());
  DiscreteGaussianSampler sampler(drbg);
  std::vector<Real> out(4);
  EXPECT_EQ(party.step.ScoreBlock(Span<const Real>(test.data(), 4), score,
                                  sampler, Span<Real>(out.data(), 4)),
            Status::FailedPrecondition());
  ASSERT_TRUE(party.step
                  .ClipModel(SharingClip{0, kClip, 0, kSigma},
                             Span<const Real>(test.data(), 4))
                  .ok());
  EXPECT_TRUE(party.step
                  .ScoreBlock(Span<const Real>(test.data(), 4), score, sampler,
                              Span<Real>(out.data(), 4))
                  .ok());
  for (const Real v : out) {
    EXPECT_EQ(double(v), std::round(double(v) / double(kGrid)) * double(kGrid));
  }
}

}  // namespace
}  // namespace edgeadmm
