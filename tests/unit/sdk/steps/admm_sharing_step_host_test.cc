// AdmmSharingStep (paper 000 eq. 6 / 16): the x-update against the numpy
// reference (admm_sharing_reference.py) and a dense QR solve, streaming in
// blocks, the share, and the two noise modes' distributions.
#include <Eigen/Dense>
#include <cmath>
#include <vector>

#include "edgeadmm/admm_sharing_step.h"
#include "edgeadmm/drbg.h"
#include "edgeadmm/fake/test_entropy.h"
#include "gtest/gtest.h"

namespace edgeadmm {
namespace {

using Mat =
    Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Vec = Eigen::VectorXd;

constexpr size_t kN = 9;
constexpr size_t kP = 4;
constexpr Real kLambda = 0.3;
constexpr Real kRho = 0.7;

// The reference script's inputs, rebuilt from the same formulas.
struct Inputs {
  std::vector<Real> d = std::vector<Real>(kN * kP);
  std::vector<Real> x_prev = std::vector<Real>(kP);
  std::vector<Real> y = std::vector<Real>(kN);
  std::vector<Real> v = std::vector<Real>(kN);
  Inputs() {
    for (size_t i = 0; i < kN; ++i) {
      for (size_t j = 0; j < kP; ++j) {
        d[i * kP + j] = 0.5 * std::sin(1.0 + double(i * kP + j));
      }
      y[i] = 0.1 * std::sin(2.0 + double(i));
      v[i] = 0.2 * std::cos(3.0 + double(i));
    }
    for (size_t j = 0; j < kP; ++j)
      x_prev[j] = 0.25 * std::cos(1.0 + double(j));
  }
};

struct Step {
  std::vector<std::byte> memory;
  Workspace ws;
  AdmmSharingStep step;
  TestEntropy entropy{42};
  Drbg drbg;
  DiscreteGaussianSampler noise{drbg};
  DiscreteGaussianSampler exact{drbg};
  Step(const std::vector<Real>& d, size_t n, size_t p, Real lambda, Real rho)
      : memory(AdmmSharingStep::WorkspaceBytes(p)),
        ws(ByteSpan(memory.data(), memory.size())) {
    EXPECT_TRUE(
        step.Init(ws, Span<const Real>(d.data(), d.size()), n, p, lambda, rho)
            .ok());
    EXPECT_TRUE(drbg.Init(entropy, ConstByteSpan()).ok());
  }
  // One round streaming y, v in blocks of `block` rows (own share recomputed
  // from x̃, or taken from `own` when given).
  Result<SharingSolveReport> Round(const std::vector<Real>& y,
                                   const std::vector<Real>& v, size_t block,
                                   SharingNoiseParams params = {},
                                   const std::vector<Real>* own = nullptr) {
    EXPECT_TRUE(step.BeginRound().ok());
    const size_t n = y.size();
    for (size_t first = 0; first < n; first += block) {
      const size_t b = std::min(block, n - first);
      const Span<const Real> own_block =
          own == nullptr ? Span<const Real>()
                         : Span<const Real>(&(*own)[first], b);
      EXPECT_TRUE(step.AccumulateBlock(first, Span<const Real>(&y[first], b),
                                       Span<const Real>(&v[first], b),
                                       own_block)
                      .ok());
    }
    return step.Solve(params, noise);
  }
};

// eq. (6) by a dense column-pivoted QR (not the step's Cholesky):
// (λI + ρDᵀD) x = −Dᵀ(y + ρw), w = v − own share.
Vec DenseX(const std::vector<Real>& d_rows, const std::vector<Real>& y,
           const Vec& w) {
  const Mat d = Eigen::Map<const Mat>(d_rows.data(), kN, kP);
  const Mat k = kLambda * Mat::Identity(kP, kP) + kRho * d.transpose() * d;
  return k.colPivHouseholderQr().solve(
      -d.transpose() * (Eigen::Map<const Vec>(y.data(), kN) + kRho * w));
}

// Expects x̃ = x entry-wise within 1e-13.
void ExpectX(const AdmmSharingStep& step, const Vec& x) {
  for (size_t j = 0; j < kP; ++j) {
    EXPECT_NEAR(step.x_tilde()[j], x[Eigen::Index(j)], 1e-13) << j;
  }
}

// Noise parameters of one mode.
SharingNoiseParams Noise(SharingNoise mode, Real sigma) {
  SharingNoiseParams params;
  params.mode = mode;
  params.sigma = sigma;
  return params;
}

// The step's current x̃ as a vector.
std::vector<Real> XTilde(const AdmmSharingStep& step) {
  return std::vector<Real>(step.x_tilde().begin(), step.x_tilde().end());
}

TEST(AdmmSharingStepTest, FirstRoundFromZeroMatchesNumpyReferenceAndQr) {
  const Inputs in;
  // Round 1 from x̃ = 0 with v' chosen so that v' − D·0 equals the reference's
  // v − D x̃_prev: the same right-hand side as the reference's round.
  const Mat d = Eigen::Map<const Mat>(in.d.data(), kN, kP);
  const Vec xp = Eigen::Map<const Vec>(in.x_prev.data(), kP);
  const Vec shifted = Eigen::Map<const Vec>(in.v.data(), kN) - d * xp;
  std::vector<Real> v(shifted.data(), shifted.data() + kN);
  Step s(in.d, kN, kP, kLambda, kRho);
  ASSERT_TRUE(s.Round(in.y, v, 4).ok());
  // Golden values printed by admm_sharing_reference.py (numpy solve).
  const Real golden[kP] = {0.11800395588372166, -0.074373376484166573,
                           -0.1983721695029107, -0.13998850472080962};
  for (size_t j = 0; j < kP; ++j) {
    EXPECT_NEAR(s.step.x_tilde()[j], golden[j], 1e-13) << j;
  }
  ExpectX(s.step, DenseX(in.d, in.y, shifted));
}

TEST(AdmmSharingStepTest, SecondRoundSubtractsOwnShareRecomputedFromXTilde) {
  // A second round must use v − D x̃ with x̃ from the first round (eq. 6,
  // Alg. 1 lines 3-4); checked against a dense solve.
  const Inputs in;
  Step s(in.d, kN, kP, kLambda, kRho);
  ASSERT_TRUE(s.Round(in.y, in.v, kN).ok());
  const std::vector<Real> x1 = XTilde(s.step);
  std::vector<Real> y2(kN), v2(kN);
  for (size_t i = 0; i < kN; ++i) {
    y2[i] = 0.05 * std::cos(double(i));
    v2[i] = -0.1 * std::sin(0.3 * double(i));
  }
  ASSERT_TRUE(s.Round(y2, v2, 2).ok());
  const Mat d = Eigen::Map<const Mat>(in.d.data(), kN, kP);
  const Vec w = Eigen::Map<const Vec>(v2.data(), kN) -
                d * Eigen::Map<const Vec>(x1.data(), kP);
  ExpectX(s.step, DenseX(in.d, y2, w));
}

TEST(AdmmSharingStepTest, BlockSizeDoesNotChangeTheResultAndShareIsDx) {
  const Inputs in;
  Step a(in.d, kN, kP, kLambda, kRho);
  Step b(in.d, kN, kP, kLambda, kRho);
  ASSERT_TRUE(a.Round(in.y, in.v, 1).ok());
  ASSERT_TRUE(b.Round(in.y, in.v, kN).ok());
  for (size_t j = 0; j < kP; ++j) {
    EXPECT_NEAR(a.step.x_tilde()[j], b.step.x_tilde()[j], 1e-15);
  }
  // Share in two uneven blocks equals D·x̃.
  std::vector<Real> share(kN);
  ASSERT_TRUE(
      a.step.ShareBlock(0, {}, a.exact, Span<Real>(share.data(), 5)).ok());
  ASSERT_TRUE(
      a.step.ShareBlock(5, {}, a.exact, Span<Real>(share.data() + 5, 4)).ok());
  for (size_t i = 0; i < kN; ++i) {
    Real dot = 0;
    for (size_t j = 0; j < kP; ++j)
      dot += in.d[i * kP + j] * a.step.x_tilde()[j];
    EXPECT_NEAR(share[i], dot, 1e-15) << i;
  }
}

TEST(AdmmSharingStepTest, RefusesOutOfOrderMissingRowsAndBadArguments) {
  const Inputs in;
  Step s(in.d, kN, kP, kLambda, kRho);
  const Span<const Real> y(in.y.data(), 3), v(in.v.data(), 3);
  EXPECT_EQ(s.step.AccumulateBlock(0, y, v, {}), Status::FailedPrecondition());
  ASSERT_TRUE(s.step.BeginRound().ok());
  EXPECT_EQ(s.step.AccumulateBlock(3, y, v, {}), Status::InvalidArgument());
  ASSERT_TRUE(s.step.AccumulateBlock(0, y, v, {}).ok());
  EXPECT_EQ(s.step.AccumulateBlock(0, y, v, {}), Status::InvalidArgument());
  EXPECT_EQ(s.step.Solve({}, s.noise).status(), Status::FailedPrecondition());
  SharingNoiseParams bad;
  bad.sigma = -1;
  std::vector<Real> out(kN);
  EXPECT_EQ(s.step.ShareBlock(0, bad, s.exact, Span<Real>(out.data(), kN)),
            Status::InvalidArgument());
  EXPECT_EQ(s.step.ShareBlock(1, {}, s.exact, Span<Real>(out.data(), kN)),
            Status::InvalidArgument());
  // Too small a workspace; λ ≤ 0.
  std::vector<std::byte> small(AdmmSharingStep::WorkspaceBytes(kP) / 2);
  Workspace ws(ByteSpan(small.data(), small.size()));
  AdmmSharingStep step;
  const Span<const Real> d(in.d.data(), in.d.size());
  EXPECT_EQ(step.Init(ws, d, kN, kP, kLambda, kRho),
            Status::ResourceExhausted());
  std::vector<std::byte> big(AdmmSharingStep::WorkspaceBytes(kP));
  Workspace ws2(ByteSpan(big.data(), big.size()));
  EXPECT_EQ(step.Init(ws2, d, kN, kP, 0, kRho), Status::InvalidArgument());
  EXPECT_EQ(step.Init(ws2, d, kN + 1, kP, kLambda, kRho),
            Status::InvalidArgument());
}

TEST(AdmmSharingStepTest, WorkspaceDoesNotGrowWithSamples) {
  // The formula has no N; Init on 9 and on 900 rows uses the same bytes.
  std::vector<Real> d(900 * kP);
  for (size_t i = 0; i < d.size(); ++i) d[i] = std::sin(double(i));
  std::vector<std::byte> mem(AdmmSharingStep::WorkspaceBytes(kP));
  Workspace ws(ByteSpan(mem.data(), mem.size()));
  AdmmSharingStep step;
  ASSERT_TRUE(
      step.Init(ws, Span<const Real>(d.data(), d.size()), 900, kP, 1, 1).ok());
  EXPECT_LE(ws.used(), AdmmSharingStep::WorkspaceBytes(kP));
}

TEST(AdmmSharingStepTest, PaperNoiseHasCovarianceSigmaSquaredInverseGram) {
  // eq. (16): x̃ − x = ξ ~ N(0, σ²(DᵀD + κI)⁻¹), κ = λ/ρ. With y = v = 0 and
  // x̃ = 0 the solve gives x = 0, so x̃ = ξ; the empirical covariance of
  // 20000 draws must match within 5% (relative Frobenius).
  const Inputs in;
  Step s(in.d, kN, kP, kLambda, kRho);
  const std::vector<Real> zeros(kN, 0.0);
  const SharingNoiseParams paper = Noise(SharingNoise::kPaper, 0.8);
  constexpr int kDraws = 20000;
  Mat cov = Mat::Zero(kP, kP);
  for (int t = 0; t < kDraws; ++t) {
    // Reset x̃ to 0: a noiseless round from y = v = 0 gives x = −K⁻¹Dᵀ(−ρDx̃)
    // ≠ 0, so use own_share = 0 explicitly, which makes the rhs 0.
    ASSERT_TRUE(s.step.BeginRound().ok());
    ASSERT_TRUE(s.step
                    .AccumulateBlock(0, Span<const Real>(zeros.data(), kN),
                                     Span<const Real>(zeros.data(), kN),
                                     Span<const Real>(zeros.data(), kN))
                    .ok());
    auto r = s.step.Solve(paper, s.noise);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->x_norm, 0);
    const Vec xi = Eigen::Map<const Vec>(s.step.x_tilde().data(), kP);
    cov += xi * xi.transpose();
  }
  cov /= kDraws;
  const Mat d = Eigen::Map<const Mat>(in.d.data(), kN, kP);
  const Mat expected =
      paper.sigma * paper.sigma *
      (d.transpose() * d + (kLambda / kRho) * Mat::Identity(kP, kP)).inverse();
  const double rel = (cov - expected).norm() / expected.norm();
  std::printf("paper-mode covariance relative error %.4f\n", rel);
  EXPECT_LT(rel, 0.05);
}

TEST(AdmmSharingStepTest, RigorousNoiseIsOnTheShareOnlyWithVarianceSigmaSq) {
  const Inputs in;
  Step s(in.d, kN, kP, kLambda, kRho);
  const SharingNoiseParams rigorous = Noise(SharingNoise::kRigorous, 0.5);
  ASSERT_TRUE(s.Round(in.y, in.v, 3, rigorous).ok());
  Step clean(in.d, kN, kP, kLambda, kRho);
  ASSERT_TRUE(clean.Round(in.y, in.v, 3).ok());
  for (size_t j = 0; j < kP; ++j) {
    EXPECT_EQ(s.step.x_tilde()[j], clean.step.x_tilde()[j]);  // x̃ = x
  }
  std::vector<Real> exact(kN), noisy(kN);
  ASSERT_TRUE(
      s.step.ShareBlock(0, {}, s.exact, Span<Real>(exact.data(), kN)).ok());
  double sum2 = 0;
  constexpr int kReps = 4000;
  for (int t = 0; t < kReps; ++t) {
    ASSERT_TRUE(
        s.step.ShareBlock(0, rigorous, s.exact, Span<Real>(noisy.data(), kN))
            .ok());
    for (size_t i = 0; i < kN; ++i) sum2 += std::pow(noisy[i] - exact[i], 2);
  }
  const double var = sum2 / (kReps * kN);
  std::printf("rigorous-mode per-entry variance %.5f (σ² = %.5f)\n", var,
              rigorous.sigma * rigorous.sigma);
  EXPECT_NEAR(var, rigorous.sigma * rigorous.sigma, 0.01);
}

TEST(AdmmSharingStepTest, RigorousRoundSubtractsTheReleasedNoisyShare) {
  // Pitfall 1: the next round uses v − (released share), the share the
  // server summed, passed back as own_share; checked by a dense solve.
  const Inputs in;
  Step s(in.d, kN, kP, kLambda, kRho);
  const SharingNoiseParams rigorous = Noise(SharingNoise::kRigorous, 0.3);
  ASSERT_TRUE(s.Round(in.y, in.v, kN, rigorous).ok());
  std::vector<Real> released(kN);
  ASSERT_TRUE(
      s.step.ShareBlock(0, rigorous, s.exact, Span<Real>(released.data(), kN))
          .ok());
  ASSERT_TRUE(s.Round(in.y, in.v, 4, rigorous, &released).ok());
  const Vec w = Eigen::Map<const Vec>(in.v.data(), kN) -
                Eigen::Map<const Vec>(released.data(), kN);
  ExpectX(s.step, DenseX(in.d, in.y, w));
}

}  // namespace
}  // namespace edgeadmm
