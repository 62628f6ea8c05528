// AdmmSharingStep (paper 000 eq. 6) on every target, the Cortex-M4F
// included: static arrays only, no heap. The first round against the numpy
// golden values (admm_sharing_reference.py, the same as the host test's),
// streamed in blocks of 1, 4 and 9 rows, and the share D_m x̃ row by row.
// The host test (admm_sharing_step_host_test.cc) adds a dense QR reference
// and the noise modes' distributions.
#include "edgeadmm/admm_sharing_step.h"

#include <cmath>

#include "edgeadmm/drbg.h"
#include "edgeadmm/fake/test_entropy.h"
#include "edgeadmm/share_noise_stream.h"
#include "gtest/gtest.h"

namespace edgeadmm {
namespace {

constexpr size_t kN = 9;
constexpr size_t kP = 4;
constexpr Real kLambda = 0.3;
constexpr Real kRho = 0.7;
constexpr size_t kBytes = AdmmSharingStep::WorkspaceBytes(kP);

// The reference script's inputs, from the same formulas; v is shifted by
// D·x_prev so that a first round from x̃ = 0 has the reference's right-hand
// side (v − D x̃_prev).
struct Inputs {
  Real d[kN * kP];
  Real y[kN];
  Real v[kN];
  Inputs() {
    Real x_prev[kP];
    for (size_t j = 0; j < kP; ++j) {
      x_prev[j] = 0.25 * std::cos(1.0 + double(j));
    }
    for (size_t i = 0; i < kN; ++i) {
      Real own = 0;
      for (size_t j = 0; j < kP; ++j) {
        d[i * kP + j] = 0.5 * std::sin(1.0 + double(i * kP + j));
        own += d[i * kP + j] * x_prev[j];
      }
      y[i] = 0.1 * std::sin(2.0 + double(i));
      v[i] = 0.2 * std::cos(3.0 + double(i)) - own;
    }
  }
};

// Golden x of the reference's round (numpy solve of eq. 6).
constexpr Real kGolden[kP] = {0.11800395588372166, -0.074373376484166573,
                              -0.1983721695029107, -0.13998850472080962};

struct Party {
  alignas(Workspace::kAlignment) std::byte memory[kBytes];
  AdmmSharingStep step;
  TestEntropy entropy{42};
  Drbg drbg;
  DiscreteGaussianSampler noise{drbg};
  DiscreteGaussianSampler exact{drbg};

  explicit Party(const Inputs& in) {
    Workspace ws(ByteSpan(memory, kBytes));
    EXPECT_TRUE(
        step.Init(ws, Span<const Real>(in.d, kN * kP), kN, kP, kLambda, kRho)
            .ok());
    EXPECT_TRUE(drbg.Init(entropy, ConstByteSpan()).ok());
  }

  // One round, (y, v) streamed in blocks of `block` rows.
  bool Round(const Inputs& in, size_t block) {
    if (!step.BeginRound().ok()) return false;
    for (size_t first = 0; first < kN; first += block) {
      const size_t b = block < kN - first ? block : kN - first;
      if (!step.AccumulateBlock(first, Span<const Real>(in.y + first, b),
                                Span<const Real>(in.v + first, b),
                                Span<const Real>())
               .ok()) {
        return false;
      }
    }
    return step.Solve(SharingNoiseParams{}, noise).ok();
  }
};

TEST(AdmmSharingStepTest, FirstRoundMatchesNumpyInEveryBlockSize) {
  const Inputs in;
  for (const size_t block : {size_t{1}, size_t{4}, kN}) {
    Party party(in);
    ASSERT_TRUE(party.Round(in, block));
    for (size_t j = 0; j < kP; ++j) {
      EXPECT_NEAR(party.step.x_tilde()[j], kGolden[j], 1e-12)
          << "block " << block << " coordinate " << j;
    }
  }
}

TEST(AdmmSharingStepTest, ShareIsDTimesXTildeRowByRow) {
  const Inputs in;
  Party party(in);
  ASSERT_TRUE(party.Round(in, 4));
  Real share[kN];
  for (size_t first = 0; first < kN; first += 2) {
    const size_t b = 2 < kN - first ? 2 : kN - first;
    ASSERT_TRUE(party.step
                    .ShareBlock(first, SharingNoiseParams{}, party.exact,
                                Span<Real>(share + first, b))
                    .ok());
  }
  for (size_t i = 0; i < kN; ++i) {
    Real expected = 0;
    for (size_t j = 0; j < kP; ++j) expected += in.d[i * kP + j] * kGolden[j];
    EXPECT_NEAR(share[i], expected, 1e-12) << i;
  }
}

TEST(AdmmSharingStepTest, RefusesRowsOutOfOrder) {
  const Inputs in;
  Party party(in);
  ASSERT_TRUE(party.step.BeginRound().ok());
  EXPECT_FALSE(party.step
                   .AccumulateBlock(4, Span<const Real>(in.y + 4, 2),
                                    Span<const Real>(in.v + 4, 2),
                                    Span<const Real>())
                   .ok());
}

// Streaming (issue 15): a party with more rows than one noise chunk, two
// Jacobi rounds (the second recomputes D_m x̃_m row by row), the rigorous
// share with keyed noise. Rows are summed in the same order whatever the
// block size, so the streamed step equals the whole-vector step bit for bit.
constexpr size_t kLongN = 2 * ShareNoiseStream::kChunkRows + 22;
constexpr size_t kLongP = 5;
constexpr size_t kLongBytes = AdmmSharingStep::WorkspaceBytes(kLongP);

struct LongInputs {
  Real d[kLongN * kLongP];
  Real y[kLongN];
  Real v[kLongN];
  std::byte key[ShareNoiseStream::kKeyBytes];
  LongInputs() {
    for (size_t i = 0; i < kLongN * kLongP; ++i) {
      d[i] = 0.4 * std::sin(0.5 + double(i));
    }
    for (size_t i = 0; i < kLongN; ++i) {
      y[i] = 0.1 * std::cos(double(i));
      v[i] = 0.3 * std::sin(1.5 + 2.0 * double(i));
    }
    for (size_t i = 0; i < sizeof(key); ++i) key[i] = std::byte(i * 7 + 3);
  }
};

struct Streamed {
  Real x[kLongP];
  Real share[kLongN];
};

// A party bound to LongInputs' rows, the rigorous noise of σ = 0.8 (drawn
// by ShareBlock only: Solve draws nothing in kRigorous).
struct LongParty {
  alignas(Workspace::kAlignment) std::byte memory[kLongBytes];
  AdmmSharingStep step;
  TestEntropy entropy{1};
  Drbg drbg;
  DiscreteGaussianSampler unused{drbg};
  SharingNoiseParams noise;

  explicit LongParty(const LongInputs& in) {
    Workspace ws(ByteSpan(memory, kLongBytes));
    EXPECT_TRUE(step.Init(ws, Span<const Real>(in.d, kLongN * kLongP), kLongN,
                          kLongP, kLambda, kRho)
                    .ok());
    noise.mode = SharingNoise::kRigorous;
    noise.sigma = 0.8;
  }
};

// Two rounds with (y, v) and the share both moved in blocks of `block` rows.
bool StreamTwoRounds(const LongInputs& in, size_t block, Streamed& out) {
  LongParty party(in);
  AdmmSharingStep& step = party.step;
  const SharingNoiseParams& noise = party.noise;
  DiscreteGaussianSampler& unused = party.unused;
  for (int round = 0; round < 2; ++round) {
    if (!step.BeginRound().ok()) return false;
    for (size_t first = 0; first < kLongN; first += block) {
      const size_t b = block < kLongN - first ? block : kLongN - first;
      if (!step.AccumulateBlock(first, Span<const Real>(in.y + first, b),
                                Span<const Real>(in.v + first, b),
                                Span<const Real>())
               .ok()) {
        return false;
      }
    }
    if (!step.Solve(noise, unused).ok()) return false;
  }
  for (size_t first = 0; first < kLongN; first += block) {
    const size_t b = block < kLongN - first ? block : kLongN - first;
    if (!step.ShareBlock(first, noise, ConstByteSpan(in.key, sizeof(in.key)),
                         Span<Real>(out.share + first, b))
             .ok()) {
      return false;
    }
  }
  for (size_t j = 0; j < kLongP; ++j) out.x[j] = step.x_tilde()[j];
  return true;
}

TEST(AdmmSharingStepTest, StreamedStepEqualsTheWholeVectorStep) {
  static const LongInputs in;
  static Streamed whole;
  static Streamed streamed;
  ASSERT_TRUE(StreamTwoRounds(in, kLongN, whole));
  for (const size_t block :
       {size_t{1}, size_t{7}, ShareNoiseStream::kChunkRows, size_t{100}}) {
    ASSERT_TRUE(StreamTwoRounds(in, block, streamed)) << block;
    for (size_t j = 0; j < kLongP; ++j) {
      ASSERT_EQ(streamed.x[j], whole.x[j]) << "block " << block;
    }
    for (size_t i = 0; i < kLongN; ++i) {
      ASSERT_EQ(streamed.share[i], whole.share[i])
          << "block " << block << " row " << i;
    }
  }
}

TEST(AdmmSharingStepTest, ResentShareBlocksCarryTheSameNoise) {
  static const LongInputs in;
  LongParty party(in);
  AdmmSharingStep& step = party.step;
  const SharingNoiseParams& noise = party.noise;
  const Real x[kLongP] = {0.3, -0.2, 0.1, 0.05, -0.4};
  ASSERT_TRUE(step.SetModel(Span<const Real>(x, kLongP)).ok());
  const ConstByteSpan key(in.key, sizeof(in.key));
  Real first[64];
  Real again[64];
  Real shifted[10];
  Real plain[64];
  ASSERT_TRUE(step.ShareBlock(64, noise, key, Span<Real>(first, 64)).ok());
  ASSERT_TRUE(step.ShareBlock(64, noise, key, Span<Real>(again, 64)).ok());
  ASSERT_TRUE(step.ShareBlock(60, noise, key, Span<Real>(shifted, 10)).ok());
  ASSERT_TRUE(
      step.ShareBlock(64, SharingNoiseParams{}, key, Span<Real>(plain, 64))
          .ok());
  size_t noised = 0;
  for (size_t j = 0; j < 64; ++j) {
    EXPECT_EQ(again[j], first[j]) << j;
    noised += first[j] != plain[j] ? 1 : 0;
  }
  for (size_t j = 4; j < 10; ++j) EXPECT_EQ(shifted[j], first[j - 4]) << j;
  EXPECT_EQ(noised, 64u);  // the rigorous share is noised, the plain one not
  std::byte short_key[8] = {};
  EXPECT_EQ(step.ShareBlock(0, noise, ConstByteSpan(short_key, 8),
                            Span<Real>(first, 4))
                .code(),
            StatusCode::kInvalidArgument);
}

// The streaming memory formula has no N: a buffer of StreamingBytes(p, B)
// runs a round on 20 rows and on 4,000 rows (an N-vector in the step's
// workspace would make the larger one RESOURCE_EXHAUSTED).
TEST(AdmmSharingStepTest, StreamingMemoryDoesNotGrowWithN) {
  constexpr size_t kBlock = 32;
  constexpr size_t kBig = 4000;
  constexpr size_t kStreamBytes =
      AdmmSharingStep::StreamingBytes(kLongP, kBlock);
  static Real d[kBig * kLongP];
  for (size_t i = 0; i < kBig * kLongP; ++i) d[i] = 0.3 * std::cos(double(i));
  for (const size_t n : {size_t{20}, kBig}) {
    alignas(Workspace::kAlignment) static std::byte memory[kStreamBytes];
    Workspace ws(ByteSpan(memory, kStreamBytes));
    AdmmSharingStep step;
    ASSERT_TRUE(
        step.Init(ws, Span<const Real>(d, n * kLongP), n, kLongP, kLambda, kRho)
            .ok())
        << n;
    auto y = ws.Allocate<Real>(kBlock);
    auto v = ws.Allocate<Real>(kBlock);
    ASSERT_TRUE(y.ok() && v.ok()) << n;
    ASSERT_TRUE(step.BeginRound().ok());
    for (size_t first = 0; first < n; first += kBlock) {
      const size_t b = kBlock < n - first ? kBlock : n - first;
      for (size_t j = 0; j < b; ++j) {
        y.value()[j] = 0.01 * double((first + j) % 7);
        v.value()[j] = -0.02 * double((first + j) % 5);
      }
      ASSERT_TRUE(step.AccumulateBlock(first, y.value().first(b),
                                       v.value().first(b), Span<const Real>())
                      .ok());
    }
    TestEntropy entropy(1);
    Drbg drbg;
    DiscreteGaussianSampler unused{drbg};
    DiscreteGaussianSampler exact_unused{drbg};
    ASSERT_TRUE(step.Solve(SharingNoiseParams{}, unused).ok()) << n;
    // The last share block reuses the y buffer.
    const size_t last = n < kBlock ? n : kBlock;
    ASSERT_TRUE(step.ShareBlock(n - last, SharingNoiseParams{}, exact_unused,
                                y.value().first(last))
                    .ok());
  }
}

// The two-pass form (u's rows, then y's, as RoundTask carries them) solves
// the same round as AccumulateBlock, to rounding: two rounds, u in blocks of
// 7 rows then y in blocks of 64, and both passes interleaved.
TEST(AdmmSharingStepTest, TwoPassAccumulationMatchesOnePass) {
  static const LongInputs in;
  static Streamed whole;
  ASSERT_TRUE(StreamTwoRounds(in, kLongN, whole));
  using V = AdmmSharingStep::Vector;
  for (const bool interleave : {false, true}) {
    LongParty party(in);
    AdmmSharingStep& step = party.step;
    const SharingNoiseParams& noise = party.noise;
    DiscreteGaussianSampler& unused = party.unused;
    for (int round = 0; round < 2; ++round) {
      ASSERT_TRUE(step.BeginRound().ok());
      size_t u_row = 0;
      size_t y_row = 0;
      while (u_row < kLongN || y_row < kLongN) {
        // Not interleaved: every u block first, then the y blocks.
        if (u_row < kLongN) {
          const size_t b = 7 < kLongN - u_row ? 7 : kLongN - u_row;
          ASSERT_TRUE(
              step.AccumulateVectorBlock(V::kModel, u_row,
                                         Span<const Real>(in.v + u_row, b),
                                         Span<const Real>())
                  .ok());
          u_row += b;
          if (!interleave) continue;
        }
        if (y_row == 0 && u_row == kLongN) {
          // Solve refuses while the y pass is missing (the round goes on).
          EXPECT_EQ(step.Solve(noise, unused).status().code(),
                    StatusCode::kFailedPrecondition);
        }
        if (y_row < kLongN) {
          const size_t b = 64 < kLongN - y_row ? 64 : kLongN - y_row;
          ASSERT_TRUE(
              step.AccumulateVectorBlock(V::kAuxiliary, y_row,
                                         Span<const Real>(in.y + y_row, b),
                                         Span<const Real>())
                  .ok());
          y_row += b;
        }
      }
      ASSERT_TRUE(step.Solve(noise, unused).ok());
    }
    for (size_t j = 0; j < kLongP; ++j) {
      EXPECT_NEAR(step.x_tilde()[j], whole.x[j],
                  1e-12 * (1 + std::fabs(whole.x[j])))
          << "interleave " << interleave << " coordinate " << j;
    }
  }
}

TEST(AdmmSharingStepTest, TwoPassAccumulationRefusesDisorder) {
  static const LongInputs in;
  LongParty party(in);
  AdmmSharingStep& step = party.step;
  using V = AdmmSharingStep::Vector;
  const Span<const Real> none;
  EXPECT_EQ(
      step.AccumulateVectorBlock(V::kModel, 0, Span<const Real>(in.v, 4), none)
          .code(),
      StatusCode::kFailedPrecondition);  // before BeginRound
  ASSERT_TRUE(step.BeginRound().ok());
  ASSERT_TRUE(
      step.AccumulateVectorBlock(V::kModel, 0, Span<const Real>(in.v, 4), none)
          .ok());
  // A gap, an own share with y, and a one-pass block once the passes differ.
  EXPECT_EQ(step.AccumulateVectorBlock(V::kModel, 5,
                                       Span<const Real>(in.v + 5, 2), none)
                .code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(
      step.AccumulateVectorBlock(V::kAuxiliary, 0, Span<const Real>(in.y, 2),
                                 Span<const Real>(in.v, 2))
          .code(),
      StatusCode::kInvalidArgument);
  EXPECT_EQ(step.AccumulateBlock(4, Span<const Real>(in.y + 4, 2),
                                 Span<const Real>(in.v + 4, 2), none)
                .code(),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace edgeadmm
