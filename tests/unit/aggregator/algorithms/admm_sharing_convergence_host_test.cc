// ADMM sharing (paper 000 Alg. 1, Jacobi) run in process (no network): two
// AdmmSharingStep parties on the first 1000 a9a records (party 1 the first 66
// features, party 2 the remaining 57), labels at an AdmmSharingServer, x = y
// = z = 0 at start, no noise. The concatenated model must reach the
// centralized optimum of F(x) = (1/N)Σ_i log(1 + e^{−Y_i D^i x}) + (λ/2)||x||²
// (computed independently by Newton on the full matrix) within 1e-6 relative
// objective, and beat party 1's features alone (training objective and test
// log loss on a9a.t). Lemma 2 (y = ∇l(z)) is checked after every round.
// Choices (digest A5 leaves them open): c = 1/N inside l, R = ½||x||²,
// λ = 1e-2, ρ = 0.4/N (ρ = 0.1/N stalls: Jacobi needs ρ large enough,
// Assumption 1.2), streamed in blocks of 64 rows.
#include <Eigen/Dense>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "edgeadmm/admm_sharing_step.h"
#include "edgeadmm/algorithms/admm_sharing.h"
#include "edgeadmm/algorithms/admm_sharing_server.h"
#include "edgeadmm/dataio/libsvm_reader.h"
#include "edgeadmm/drbg.h"
#include "edgeadmm/fake/test_entropy.h"
#include "edgeadmm/jobs/job_config.h"
#include "gtest/gtest.h"

namespace edgeadmm {
namespace {

using Vec = Eigen::VectorXd;
using Mat =
    Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

constexpr size_t kDim = 123;
constexpr size_t kSplit = 66;
constexpr size_t kN = 1000;
constexpr size_t kTest = 2000;
constexpr size_t kBlock = 64;
constexpr double kLambda = 1e-2;
constexpr double kC = 1.0 / kN;
constexpr double kRho = 0.4 / kN;
constexpr int kRounds = 400;
// Rigorous run: N(0, σ²) per share entry, the operator's explicit L2
// sensitivity Δ of one share (illustrative, not derived).
constexpr double kSigma = 1e-2;
constexpr double kSensitivity = 1e-3;
constexpr double kPaperEpsilon = 50;

std::string DataPath(const char* name) {
  const char* dir = std::getenv("EDGEADMM_DATA");
  return std::string(dir != nullptr && *dir != '\0' ? dir : "../shared/data") +
         "/" + name;
}

double MeanLogLoss(const Mat& a, const Vec& b, const Vec& w) {
  const Vec t = a * w;
  double sum = 0;
  for (Eigen::Index i = 0; i < t.size(); ++i) {
    const double u = b[i] * t[i];
    sum += u > 0 ? std::log1p(std::exp(-u)) : -u + std::log1p(std::exp(u));
  }
  return sum / double(t.size());
}

double Objective(const Mat& a, const Vec& b, const Vec& w) {
  return MeanLogLoss(a, b, w) + 0.5 * kLambda * w.squaredNorm();
}

// Centralized optimum by Newton on the full matrix (dense Hessian, LDLT).
Vec Newton(const Mat& a, const Vec& b) {
  Vec w = Vec::Zero(a.cols());
  for (int it = 0; it < 50; ++it) {
    const Vec t = a * w;
    Vec g = kLambda * w, d(t.size());
    Vec coef(t.size());
    for (Eigen::Index i = 0; i < t.size(); ++i) {
      const double q = 1 / (1 + std::exp(b[i] * t[i]));
      coef[i] = -b[i] * q / double(t.size());
      d[i] = q * (1 - q) / double(t.size());
    }
    g += a.transpose() * coef;
    if (g.norm() < 1e-14) break;
    const Mat h = a.transpose() * d.asDiagonal() * a +
                  kLambda * Mat::Identity(a.cols(), a.cols());
    w -= h.ldlt().solve(g);
  }
  return w;
}

struct Party {
  std::vector<Real> features;  // N x p_m, row-major (the party's columns)
  size_t dim = 0;
  std::vector<std::byte> memory;
  Workspace ws;
  AdmmSharingStep step;
};

constexpr size_t kFirstCol[2] = {0, kSplit};

// Party 1 = the first 66 columns, party 2 the remaining 57.
bool InitParties(const Mat& a, Party (&parties)[2]) {
  parties[0].dim = kSplit;
  parties[1].dim = kDim - kSplit;
  for (int m = 0; m < 2; ++m) {
    Party& p = parties[m];
    const Mat block =
        a.middleCols(Eigen::Index(kFirstCol[m]), Eigen::Index(p.dim));
    p.features.assign(block.data(), block.data() + block.size());
    p.memory.resize(AdmmSharingStep::WorkspaceBytes(p.dim));
    p.ws = Workspace(ByteSpan(p.memory.data(), p.memory.size()));
    if (!p.step
             .Init(p.ws, Span<const Real>(p.features.data(), p.features.size()),
                   kN, p.dim, kLambda, kRho)
             .ok()) {
      return false;
    }
  }
  return true;
}

// One party's round: stream (y, v) in blocks (own: the party's released
// share of the last round, needed in kRigorous; empty: recomputed from x̃),
// solve, and stream the share out.
bool PartyRound(AdmmSharingStep& step, const std::vector<double>& y,
                const std::vector<double>& v, const std::vector<double>& own,
                const SharingNoiseParams& params,
                DiscreteGaussianSampler& noise, DiscreteGaussianSampler& exact,
                std::vector<double>& share) {
  if (!step.BeginRound().ok()) return false;
  for (size_t first = 0; first < kN; first += kBlock) {
    const size_t n = std::min(kBlock, kN - first);
    if (!step.AccumulateBlock(first, Span<const Real>(&y[first], n),
                              Span<const Real>(&v[first], n),
                              own.empty() ? Span<const Real>()
                                          : Span<const Real>(&own[first], n))
             .ok()) {
      return false;
    }
  }
  if (!step.Solve(params, noise).ok()) return false;
  share.assign(kN, 0.0);
  for (size_t first = 0; first < kN; first += kBlock) {
    const size_t n = std::min(kBlock, kN - first);
    if (!step.ShareBlock(first, params, exact, Span<Real>(&share[first], n))
             .ok()) {
      return false;
    }
  }
  return true;
}

// The first kN a9a records and the first kTest a9a.t records.
struct A9a {
  Mat a, at;
  Vec b, bt;
  bool Load() {
    auto train = ReadLibsvmFile(DataPath("a9a.xz"), kDim);
    auto test = ReadLibsvmFile(DataPath("a9a.t.xz"), kDim);
    if (!train.ok() || !test.ok()) return false;
    a = Eigen::Map<const Mat>(train->features.data(), kN, kDim);
    b = Eigen::Map<const Vec>(train->labels.data(), kN);
    at = Eigen::Map<const Mat>(test->features.data(), kTest, kDim);
    bt = Eigen::Map<const Vec>(test->labels.data(), kTest);
    return true;
  }
};

TEST(AdmmSharingConvergenceTest, TwoPartiesOnA9aReachTheCentralizedOptimum) {
  A9a d;
  ASSERT_TRUE(d.Load());
  const Mat& a = d.a;
  const Vec& b = d.b;
  const Mat& at = d.at;
  const Vec& bt = d.bt;

  const Vec w_star = Newton(a, b);
  const double f_star = Objective(a, b, w_star);
  const Mat a1 = a.leftCols(kSplit);
  const Vec w1 = Newton(a1, b);
  const double f_party1 = Objective(a1, b, w1);

  Party parties[2];
  ASSERT_TRUE(InitParties(a, parties));
  const size_t* first_col = kFirstCol;
  algorithms::AdmmSharingServer server;
  ASSERT_TRUE(
      server.Init(std::vector<double>(b.data(), b.data() + kN), kRho, kC).ok());
  TestEntropy entropy{7};
  Drbg drbg;
  ASSERT_TRUE(drbg.Init(entropy, ConstByteSpan()).ok());
  DiscreteGaussianSampler noise{drbg};
  DiscreteGaussianSampler exact{drbg};

  double worst_lemma2 = 0;
  Vec x(kDim);
  double gap = 0;
  for (int t = 0; t < kRounds; ++t) {
    std::vector<std::vector<double>> shares(2, std::vector<double>(kN));
    for (int m = 0; m < 2; ++m) {
      ASSERT_TRUE(PartyRound(parties[m].step, server.y(), server.v(), {}, {},
                             noise, exact, shares[m]));
    }
    ASSERT_TRUE(server.ApplyRound(shares, nullptr).ok());
    const std::vector<double> grad = server.LossGradient(server.z());
    for (size_t i = 0; i < kN; ++i) {
      worst_lemma2 = std::max(worst_lemma2, std::abs(server.y()[i] - grad[i]));
    }
    for (int m = 0; m < 2; ++m) {
      for (size_t j = 0; j < parties[m].dim; ++j) {
        x[Eigen::Index(first_col[m] + j)] = parties[m].step.x_tilde()[j];
      }
    }
    gap = (Objective(a, b, x) - f_star) / f_star;
    if (t % 50 == 49) {
      std::printf("round %3d: relative objective gap %.3e\n", t + 1, gap);
    }
  }
  const double test_admm = MeanLogLoss(at, bt, x);
  const double test_star = MeanLogLoss(at, bt, w_star);
  const double test_party1 = MeanLogLoss(at.leftCols(kSplit), bt, w1);
  std::printf(
      "F* = %.10f, F(party 1 alone) = %.10f, ADMM gap %.3e after %d rounds, "
      "||x − x*|| = %.3e\ntest log loss: ADMM %.6f, centralized %.6f, party 1 "
      "%.6f; max |y − ∇l(z)| = %.3e\n",
      f_star, f_party1, gap, kRounds, (x - w_star).norm(), test_admm, test_star,
      test_party1, worst_lemma2);
  EXPECT_GE(gap, -1e-12);
  EXPECT_LT(gap, 1e-6);
  EXPECT_LT(std::abs(test_admm - test_star), 0.01 * test_star);
  EXPECT_LT(Objective(a, b, x), f_party1);
  EXPECT_LT(test_admm, test_party1);
  EXPECT_LE(worst_lemma2, 2e-12 * kC);  // |φ'| ≤ 1e-12·max(c,|y|), |y| ≤ c
}

// The aggregator unit's round (algorithms/admm_sharing.h) as the daemon would
// run it: labels from the gateway's file, (z, y) persisted and reloaded every
// round, every party's share in a barrier; then the gateway scores a9a.t from
// the parties' partial scores D_m^test x̃_m (ScorePartialSums). Noiseless:
// the same optimum as above. Rigorous (σ = kSigma per share entry, Δ given):
// completes, its ε is the plan's, and the noise costs objective. Paper mode
// (σ planned from Lemma 1's C with b1 = 10, c1 = 1, ε' = 50): ruins the
// model at this ρ (printed and held).
struct RunResult {
  double gap = 0;
  double test_log_loss = 0;
  double test_accuracy = 0;
  double scored_log_loss = 0;  // from ScorePartialSums
};

bool RunJob(const jobs::JobConfig& c, const Mat& a, const Mat& at,
            const Vec& bt, double f_star,
            const std::vector<SharingNoiseParams>& params, RunResult& r) {
  auto labels = algorithms::LoadSharingLabels(c);
  if (!labels.ok()) return false;
  Party parties[2];
  if (!InitParties(a, parties)) return false;
  TestEntropy entropy{11};
  Drbg drbg;
  if (!drbg.Init(entropy, ConstByteSpan()).ok()) return false;
  DiscreteGaussianSampler noise{drbg};
  DiscreteGaussianSampler exact{drbg};
  algorithms::SharingState state;  // the store's copy
  algorithms::SharingBroadcast broadcast{std::vector<double>(kN, 0.0),
                                         std::vector<double>(kN, 0.0)};
  std::vector<std::vector<double>> shares(2);  // each party's last release
  for (int64_t t = 0; t < c.rounds; ++t) {
    std::vector<std::vector<double>> next(2);
    for (int m = 0; m < 2; ++m) {
      const bool rigorous = params[m].mode == SharingNoise::kRigorous;
      if (!PartyRound(parties[m].step, broadcast.y, broadcast.v,
                      rigorous ? shares[m] : std::vector<double>(), params[m],
                      noise, exact, next[m])) {
        return false;
      }
    }
    shares = next;
    algorithms::SharingState reloaded = state;
    if (!algorithms::ApplySharingRound(c, *labels, shares, reloaded, broadcast)
             .ok()) {
      return false;
    }
    state = reloaded;
  }
  Vec x(kDim);
  std::vector<std::vector<double>> partial(2);
  for (int m = 0; m < 2; ++m) {
    const Span<const Real> xm = parties[m].step.x_tilde();
    Vec w(Eigen::Index(parties[m].dim));
    for (size_t j = 0; j < parties[m].dim; ++j) {
      w[Eigen::Index(j)] = xm[j];
      x[Eigen::Index(kFirstCol[m] + j)] = xm[j];
    }
    // Party m's partial scores on its own test columns.
    const Vec s = at.middleCols(Eigen::Index(kFirstCol[m]), w.size()) * w;
    partial[m].assign(s.data(), s.data() + s.size());
  }
  const std::vector<double> test_labels(bt.data(), bt.data() + bt.size());
  auto score = algorithms::ScorePartialSums(partial, test_labels);
  if (!score.ok()) return false;
  r.gap =
      (Objective(a, Eigen::Map<const Vec>(labels->data(), kN), x) - f_star) /
      f_star;
  r.test_log_loss = MeanLogLoss(at, bt, x);
  r.scored_log_loss = score->log_loss;
  r.test_accuracy = score->accuracy;
  return true;
}

TEST(AdmmSharingConvergenceTest, TheAggregatorUnitsRoundsAndScoringOnA9a) {
  A9a d;
  ASSERT_TRUE(d.Load());
  const double f_star = Objective(d.a, d.b, Newton(d.a, d.b));

  jobs::JobConfig c;
  c.name = "share";
  c.loss = jobs::Loss::kLogistic;
  c.dimension = kDim;
  c.rounds = kRounds;
  c.admm_sharing.parties = 2;
  c.admm_sharing.columns = {int64_t(kSplit), int64_t(kDim - kSplit)};
  c.admm_sharing.records = kN;
  c.admm_sharing.rho = kRho;
  c.admm_sharing.lambda = kLambda;
  c.admm_sharing.labels = DataPath("a9a.xz");
  ASSERT_TRUE(algorithms::ValidateAdmmSharing(c).ok());

  RunResult plain;
  ASSERT_TRUE(RunJob(c, d.a, d.at, d.bt, f_star, {{}, {}}, plain));
  std::printf(
      "none: %d rounds, gap %.3e, test log loss %.6f (gateway-scored %.6f), "
      "accuracy %.4f\n",
      kRounds, plain.gap, plain.test_log_loss, plain.scored_log_loss,
      plain.test_accuracy);
  EXPECT_LT(plain.gap, 0.01);  // the brief's bar; it reaches ~1e-7
  EXPECT_LT(plain.gap, 1e-6);
  EXPECT_NEAR(plain.scored_log_loss, plain.test_log_loss, 1e-12);

  c.admm_sharing.noise = jobs::SharingNoiseMode::kRigorous;
  c.admm_sharing.sigma = kSigma;
  c.admm_sharing.sensitivity = kSensitivity;
  c.admm_sharing.target_delta = 1e-5;
  auto plan = algorithms::PlanSharingPrivacy(c);
  ASSERT_TRUE(plan.ok()) << plan.error().message();
  SharingNoiseParams rigorous;
  rigorous.mode = SharingNoise::kRigorous;
  rigorous.sigma = kSigma;
  RunResult priv;
  ASSERT_TRUE(RunJob(c, d.a, d.at, d.bt, f_star, {rigorous, rigorous}, priv));
  std::printf(
      "rigorous sigma %.3g, sensitivity %.3g: gap %.3e, test log loss %.6f, "
      "accuracy %.4f; eps per party %.4f, %.4f at delta %.0e\n",
      kSigma, kSensitivity, priv.gap, priv.test_log_loss, priv.test_accuracy,
      (*plan)[0].epsilon, (*plan)[1].epsilon, (*plan)[0].delta);
  EXPECT_TRUE(std::isfinite((*plan)[0].epsilon));
  EXPECT_GT(priv.gap, plain.gap);  // the noise is really added
  EXPECT_LT(priv.gap, 0.05);

  c.admm_sharing.noise = jobs::SharingNoiseMode::kPaper;
  c.admm_sharing.sigma = c.admm_sharing.sensitivity = 0;
  c.admm_sharing.paper_b1 = 10;
  c.admm_sharing.paper_c1 = 1;
  c.admm_sharing.target_epsilon = kPaperEpsilon;
  c.admm_sharing.target_delta = 1e-3;
  auto paper_plan = algorithms::PlanSharingPrivacy(c);
  ASSERT_TRUE(paper_plan.ok()) << paper_plan.error().message();
  std::vector<SharingNoiseParams> per_party(2);
  for (int m = 0; m < 2; ++m) {
    per_party[m].mode = SharingNoise::kPaper;
    per_party[m].sigma = (*paper_plan)[m].sigma;  // σ_m = (σ/C)·C_m
  }
  RunResult paper;
  ASSERT_TRUE(RunJob(c, d.a, d.at, d.bt, f_star, per_party, paper));
  std::printf(
      "paper (sigma %.3g, %.3g; C_1 %.3g, C_2 %.3g): gap %.3e, "
      "test log loss %.6f; claimed eps' %.3g per party at delta %.0e (step "
      "eps %.4f)\n",
      (*paper_plan)[0].sigma, (*paper_plan)[1].sigma,
      (*paper_plan)[0].sensitivity, (*paper_plan)[1].sensitivity, paper.gap,
      paper.test_log_loss, (*paper_plan)[0].epsilon, (*paper_plan)[0].delta,
      (*paper_plan)[0].step_epsilon);
  // Lemma 1's C grows as 1/ρ, and ρ is in the units of c = 1/N: at the ρ
  // this run converges with, the planned noise ruins the model (measured,
  // docs/results.md).
  EXPECT_GT(paper.gap, 1.0);
}

}  // namespace
}  // namespace edgeadmm
