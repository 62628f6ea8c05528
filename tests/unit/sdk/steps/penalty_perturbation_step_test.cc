#include "edgeadmm/penalty_perturbation_step.h"

#include <cmath>

#include "edgeadmm/drbg.h"
#include "edgeadmm/fake/test_entropy.h"
#include "edgeadmm/grid_gaussian.h"
#include "edgeadmm/linear_model.h"
#include "gtest/gtest.h"
#include "synthetic_data.h"

namespace edgeadmm {
namespace {

constexpr size_t kSamples = 20;
constexpr size_t kDim = 5;
constexpr size_t kBytes = PenaltyPerturbationStep::WorkspaceBytes(
    LossKind::kLogistic, kSamples, kDim);

struct Node {
  testing::SyntheticData<kSamples, kDim> data;
  DatasetView view = data.View();
  alignas(Workspace::kAlignment) std::byte memory[kBytes];
  PenaltyPerturbationStep step;
  TestEntropy entropy;
  Drbg drbg;
  GaussianSampler noise{drbg};
  DiscreteGaussianSampler exact{drbg};
  Real s[kDim], dual[kDim], f[kDim];

  // Same public inputs (s, dual, f) for every seed: `data_seed` picks the
  // records, `entropy_seed` the draws.
  explicit Node(uint64_t data_seed = 21, uint64_t entropy_seed = 4)
      : data(data_seed), entropy(entropy_seed) {
    Workspace ws(ByteSpan(memory, kBytes));
    Loss loss;
    EXPECT_TRUE(step.Init(ws, view, loss).ok());
    EXPECT_TRUE(drbg.Init(entropy, ConstByteSpan()).ok());
    testing::Lcg rng(6);
    for (size_t c = 0; c < kDim; ++c) {
      s[c] = 3 * rng.Next();
      dual[c] = 0.2 * rng.Next();
      f[c] = rng.Next();
    }
  }
};

PenaltyPerturbationParams Params() {
  PenaltyPerturbationParams p;
  p.loss_weight = 2.0;
  p.reg_weight = 1.0;
  p.nodes = 5;
  p.degree = 3;
  p.theta = 0.5;
  p.eta1 = 0.5;
  p.eta_growth = 1.1;
  p.eta_max = 50;
  p.alpha1 = 3;
  p.alpha_growth = 1.2;
  return p;
}

// Without noise, f(t+1) must satisfy the KKT condition of (10):
// C∇f̄(f) + (ρ/N) f + 2λ + η(2V f − V f(t) − S) = 0.
TEST(PenaltyPerturbationStepTest, NoiselessStepSolvesTheMAdmmPrimal) {
  Node n;
  PenaltyPerturbationParams params = Params();
  params.add_noise = false;
  Real f_old[kDim];
  for (size_t c = 0; c < kDim; ++c) f_old[c] = n.f[c];
  auto report = n.step.Run(params, 4, n.s, n.dual, n.f, n.noise, n.exact);
  ASSERT_TRUE(report.ok());
  EXPECT_NEAR(report->eta, 0.5 * std::pow(1.1, 4), 1e-12);
  Real margins[kSamples], grad[kDim];
  Loss loss;
  LocalGradient(n.view, loss, Span<const Real>(n.f, kDim),
                Span<Real>(margins, kSamples), Span<Real>(grad, kDim));
  const Real v = 3, eta = report->eta;
  for (size_t c = 0; c < kDim; ++c) {
    const Real kkt = 2.0 * grad[c] + (1.0 / 5) * n.f[c] + 2 * n.dual[c] +
                     eta * (2 * v * n.f[c] - v * f_old[c] - n.s[c]);
    EXPECT_NEAR(kkt, 0, 1e-8) << c;
  }
}

TEST(PenaltyPerturbationStepTest, NoiseHasTheGammaNormScale) {
  // Mean of ||ε|| over many draws ≈ d/α (digest 001 pitfall 6).
  PenaltyPerturbationParams params = Params();
  Real sum = 0;
  constexpr int kDraws = 400;
  Node n;
  for (int i = 0; i < kDraws; ++i) {
    auto report = n.step.Run(params, 0, n.s, n.dual, n.f, n.noise, n.exact);
    ASSERT_TRUE(report.ok());
    EXPECT_EQ(report->alpha, 3.0);
    sum += report->noise_norm;
  }
  // Gamma(5, 1/3): mean 5/3, std √5/3; 400 draws → std of mean 0.037.
  EXPECT_NEAR(sum / kDraws, 5.0 / 3.0, 5 * 0.0373);
}

TEST(PenaltyPerturbationStepTest, DualUpdateIsEquation11) {
  PenaltyPerturbationParams params = Params();
  Real f[kDim] = {1, 2, 3, 4, 5}, s[kDim] = {3, 3, 3, 3, 3},
       dual[kDim] = {0, 0, 0, 0, 1};
  ASSERT_TRUE(PenaltyPerturbationStep::DualUpdate(params, f, s, dual).ok());
  for (size_t c = 0; c < kDim; ++c) {
    EXPECT_DOUBLE_EQ(dual[c], (c == 4 ? 1 : 0) + 0.25 * (3 * f[c] - 3));
  }
}

TEST(PenaltyPerturbationStepTest, RefusesParametersOutsideThePaperConditions) {
  Node n;
  PenaltyPerturbationParams params = Params();
  params.eta1 = 0.1;  // η(1) < θ
  EXPECT_EQ(n.step.Run(params, 0, n.s, n.dual, n.f, n.noise, n.exact).status(),
            Status::InvalidArgument());
  params = Params();
  params.eta_growth = 0.9;  // decreasing penalty
  EXPECT_EQ(n.step.Run(params, 0, n.s, n.dual, n.f, n.noise, n.exact).status(),
            Status::InvalidArgument());
  // 2c₁ < (B/C)(ρ/N + 2θV) fails: C = B, tiny ρ and θ.
  params = Params();
  params.loss_weight = kSamples;
  params.reg_weight = 1e-3;
  params.theta = 1e-3;
  params.eta1 = 1e-3;
  params.degree = 1;
  EXPECT_EQ(n.step.Run(params, 0, n.s, n.dual, n.f, n.noise, n.exact).status(),
            Status::FailedPrecondition());
}

// Approximate-minima release (pp_output_perturbation.h): the solve is within
// γ − margin of the exact minimiser by its certificate, and what is released is
// its grid Gaussian, every coordinate an integer number of steps
// σ/2^kNoiseGridBits with σ = 2γz.
TEST(PenaltyPerturbationStepTest, ReleasesTheSolveOnTheOutputNoiseGrid) {
  Node n;
  PenaltyPerturbationParams params = Params();
  params.output_radius = 1e-3;
  params.output_noise_multiplier = 50;  // σ = 0.1
  auto report = n.step.Run(params, 2, n.s, n.dual, n.f, n.noise, n.exact);
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->output_noise_std, 0.1);
  EXPECT_EQ(report->gradient_steps, 0u);
  EXPECT_EQ(report->solve_bound, report->certified_distance);
  EXPECT_LE(report->certified_distance + report->rounding_margin,
            params.output_radius);
  const double grid = 0.1 / (1 << kNoiseGridBits);
  for (size_t c = 0; c < kDim; ++c) {
    const double steps = static_cast<double>(n.f[c]) / grid;
    EXPECT_NEAR(steps, std::round(steps), 1e-6 * std::fabs(steps)) << c;
  }
}

// A radius below the gradient solve's precision floor is refused before
// anything is released: f is left as it was.
TEST(PenaltyPerturbationStepTest, RefusesASolveFartherThanTheRadius) {
  Node n;
  PenaltyPerturbationParams params = Params();
  params.output_radius = 1e-300;  // below any residual the solver reaches
  Real before[kDim];
  for (size_t c = 0; c < kDim; ++c) before[c] = n.f[c];
  EXPECT_EQ(n.step.Run(params, 2, n.s, n.dual, n.f, n.noise, n.exact).status(),
            Status::Aborted());
  for (size_t c = 0; c < kDim; ++c) EXPECT_EQ(n.f[c], before[c]) << c;
  // The same step at the default radius is released.
  params.output_radius = kPpDefaultOutputRadius;
  EXPECT_TRUE(n.step.Run(params, 2, n.s, n.dual, n.f, n.noise, n.exact).ok());
  // A noisy step needs γ > 0 and z > 0.
  params.output_noise_multiplier = 0;
  EXPECT_EQ(n.step.Run(params, 2, n.s, n.dual, n.f, n.noise, n.exact).status(),
            Status::InvalidArgument());
}

// The rounding margin comes out of γ: a radius that covers the certified
// distance but not the margin as well is not certified (without the
// margin it would be: no gradient steps), a radius below the margin is
// refused (without it the gradient solve would release), and one that
// covers both is released as solved.
TEST(PenaltyPerturbationStepTest, ReservesTheRoundingMarginOutOfTheRadius) {
  PenaltyPerturbationParams params = Params();
  params.output_radius = 1e-3;
  double certified = 0, margin = 0, floor = 0;
  {
    Node n;
    auto report = n.step.Run(params, 2, n.s, n.dual, n.f, n.noise, n.exact);
    ASSERT_TRUE(report.ok());
    certified = report->certified_distance;
    margin = report->rounding_margin;
    floor = report->gradient_floor;
  }
  EXPECT_GT(margin, 0.0);
  EXPECT_GT(floor, 0.0);
  // The box corner's share of the default γ of the build: 0.2% in double,
  // 4.3% in float32 (docs/privacy.md, "What the margin costs").
  EXPECT_LT(margin, 0.1 * kPpDefaultOutputRadius);
  const auto run = [&](double radius) {
    params.output_radius = radius;
    // σ = 2γz of order 0.1, so x stays within the grid's range.
    params.output_noise_multiplier = 0.05 / radius;
    Node n;  // same seed: same draw, same solve
    return n.step.Run(params, 2, n.s, n.dual, n.f, n.noise, n.exact);
  };
  {
    // Not released as certified: either the gradient solve (within
    // γ − margin) or, when γ − margin is below its floor (float32, where
    // the margin exceeds the certified distance), refused.
    const double radius = certified + margin / 2;
    ASSERT_LT(certified, radius);
    auto report = run(radius);
    if (report.ok()) {
      EXPECT_GT(report->gradient_steps, 0u);
      EXPECT_LE(report->solve_bound + margin, radius);
    } else {
      EXPECT_EQ(report.status(), Status::Aborted());
      EXPECT_LT(radius, margin + 1e-2 * kPpDefaultOutputRadius);
    }
  }
  {
    Node n;
    Real before[kDim];
    for (size_t c = 0; c < kDim; ++c) before[c] = n.f[c];
    params.output_radius = 0.99 * margin;
    params.output_noise_multiplier = 0.05 / params.output_radius;
    EXPECT_EQ(
        n.step.Run(params, 2, n.s, n.dual, n.f, n.noise, n.exact).status(),
        Status::Aborted());
    for (size_t c = 0; c < kDim; ++c) EXPECT_EQ(n.f[c], before[c]) << c;
  }
  {
    // Certified; in float32 γ must also leave the planned descent room
    // above its floor (it is planned before the solve, certified or not).
    auto report = run((std::fmax(certified, 2 * floor) + margin) * (1 + 1e-9));
    ASSERT_TRUE(report.ok());
    EXPECT_EQ(report->gradient_steps, 0u);
    EXPECT_EQ(report->rounding_margin, margin);
  }
}

// A radius the solve's certificate does not cover is not refused: the step
// runs the proven-budget gradient descent and releases, with its bound plus
// the rounding margin within γ.
TEST(PenaltyPerturbationStepTest, UncertifiedSolveFallsBackToTheProvenBudget) {
  // A neighbour sum 100 times larger: a certified distance large enough, in
  // float32 too, to leave the gradient solve room above its floor.
  const auto scaled = [](Node& n) {
    for (size_t c = 0; c < kDim; ++c) n.s[c] *= 100;
  };
  PenaltyPerturbationParams params = Params();
  params.output_radius = 1e-3;
  double certified = 0, margin = 0;
  {
    Node n;
    scaled(n);
    auto report = n.step.Run(params, 2, n.s, n.dual, n.f, n.noise, n.exact);
    ASSERT_TRUE(report.ok());
    EXPECT_EQ(report->gradient_steps, 0u);
    certified = report->certified_distance;
    margin = report->rounding_margin;
  }
  Node n;  // same seed: same draw, same solve
  scaled(n);
  params.output_radius = 0.75 * certified + margin;
  ASSERT_GT(certified + margin, params.output_radius);
  params.output_noise_multiplier = 0.05 / params.output_radius;
  auto report = n.step.Run(params, 2, n.s, n.dual, n.f, n.noise, n.exact);
  ASSERT_TRUE(report.ok());
  EXPECT_GT(report->gradient_steps, 0u);
  EXPECT_LE(report->solve_bound + report->rounding_margin,
            params.output_radius);
}

// The rounding margin is taken at the corner of the draw's box, so it is
// the same for every draw and every dataset with the same public inputs
// (before, it was computed from the draw's own norm and differed).
TEST(PenaltyPerturbationStepTest, MarginDependsOnlyOnThePublicInputs) {
  PenaltyPerturbationParams params = Params();
  params.output_radius = 1e-3;
  double margin = 0, first_norm = 0;
  bool norms_differ = false;
  for (uint64_t data_seed : {21, 22}) {
    for (uint64_t entropy_seed : {4, 5, 6}) {
      Node n(data_seed, entropy_seed);
      auto report = n.step.Run(params, 2, n.s, n.dual, n.f, n.noise, n.exact);
      ASSERT_TRUE(report.ok());
      if (margin == 0) {
        margin = report->rounding_margin;
        first_norm = report->noise_norm;
      }
      EXPECT_EQ(report->rounding_margin, margin) << data_seed << entropy_seed;
      norms_differ |= report->noise_norm != first_norm;
    }
  }
  EXPECT_TRUE(norms_differ);
  EXPECT_GT(margin, 0.0);
}

// Whether a step refuses is decided before any record is read: for every
// radius, neighbouring datasets and different draws all refuse or all
// release. Just below the box's margin every one refuses, even where the
// prox solve would certify (the old rule released those: it compared the
// draw's own, smaller margin with γ after solving).
TEST(PenaltyPerturbationStepTest, RefusalDependsOnlyOnThePublicInputs) {
  PenaltyPerturbationParams params = Params();
  params.output_radius = 1e-3;
  double margin = 0;
  {
    Node n;
    auto report = n.step.Run(params, 2, n.s, n.dual, n.f, n.noise, n.exact);
    ASSERT_TRUE(report.ok());
    margin = report->rounding_margin;
  }
  for (double factor : {0.5, 0.99, 1.01, 2.0, 1e3}) {
    params.output_radius = factor * margin;
    params.output_noise_multiplier = 0.05 / params.output_radius;
    int refused = 0, runs = 0;
    for (uint64_t data_seed : {21, 22}) {
      for (uint64_t entropy_seed : {4, 5, 6}) {
        Node n(data_seed, entropy_seed);
        auto report = n.step.Run(params, 2, n.s, n.dual, n.f, n.noise, n.exact);
        ++runs;
        if (!report.ok()) {
          EXPECT_EQ(report.status(), Status::Aborted());
          ++refused;
        } else {
          EXPECT_LE(report->solve_bound + report->rounding_margin,
                    params.output_radius);
        }
      }
    }
    EXPECT_TRUE(refused == 0 || refused == runs) << factor;
    // Below the margin every step refuses; at 1.01 the descent's floor
    // decides (it refuses in float32); from twice the margin none does.
    if (factor < 1) {
      EXPECT_EQ(refused, runs) << factor;
    }
    if (factor >= 2) {
      EXPECT_EQ(refused, 0) << factor;
    }
  }
}

}  // namespace
}  // namespace edgeadmm
