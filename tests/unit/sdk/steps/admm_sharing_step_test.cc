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
  GaussianSampler noise{drbg};

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
                    .ShareBlock(first, SharingNoiseParams{}, party.noise,
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

}  // namespace
}  // namespace edgeadmm
