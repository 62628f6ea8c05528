#include "edgeadmm/prox_solver.h"

#include <cmath>
#include <cstddef>

#include "edgeadmm/config.h"
#include "edgeadmm/prox_tolerance.h"
#include "gtest/gtest.h"
#include "math_test_support.h"

namespace edgeadmm {
namespace {

using math_testing::FillVector;
using math_testing::MaxAbsDiff;
using math_testing::Norm;
using math_testing::ReferenceKktResidual;
using math_testing::SyntheticData;

constexpr size_t kMaxM = 40;
constexpr size_t kMaxP = 30;
// The solver's tolerance in the compute type (edgeadmm/prox_tolerance.h).
constexpr Real kTol = internal::ProxTolerance();

SyntheticData<kMaxM, kMaxP> g_data;
alignas(16) std::byte g_memory[2][ProxSolver::WorkspaceBytes(
    LossKind::kSquared, ProxMethod::kClosedForm, kMaxM, kMaxP)];

static_assert(ProxSolver::WorkspaceBytes(LossKind::kLogistic, ProxMethod::kAuto,
                                         10, 20) ==
                  Workspace::Bytes<Real>(10) + 5 * Workspace::Bytes<Real>(20),
              "Newton-CG workspace is m + 5p reals");
static_assert(ProxSolver::WorkspaceBytes(LossKind::kLogistic,
                                         ProxMethod::kClosedForm, 10, 20) == 0,
              "no closed form for the logistic loss");
static_assert(ProxSolver::Resolve(LossKind::kSquared, ProxMethod::kAuto) ==
              ProxMethod::kClosedForm);
static_assert(ProxSolver::Resolve(LossKind::kSmoothedHinge,
                                  ProxMethod::kAuto) == ProxMethod::kNewtonCg);

Loss MakeLoss(LossKind kind, Real h = 0.5) {
  Loss loss;
  loss.kind = kind;
  loss.smoothing = h;
  return loss;
}

Workspace MakeWorkspace(int which) {
  return Workspace(ByteSpan(g_memory[which], sizeof(g_memory[which])));
}

struct Case {
  size_t m;
  size_t p;
  Real s;
  Real v_scale;
};

constexpr Case kCases[] = {
    {40, 8, 1.0, 1.0}, {40, 8, 0.05, 3.0},  {6, 30, 2.0, 1.0},
    {1, 12, 0.7, 2.0}, {25, 25, 10.0, 0.5}, {40, 30, 100.0, 5.0},
};

constexpr LossKind kKinds[] = {LossKind::kLogistic, LossKind::kSquared,
                               LossKind::kSmoothedHinge};

// The returned x satisfies ∇f(x) + (x − v)/s ≈ 0, checked with a residual
// computed from scratch, for every loss and for each method that applies.
TEST(ProxSolverTest, SolutionSatisfiesProxOptimality) {
  for (LossKind kind : kKinds) {
    for (const Case& c : kCases) {
      const DatasetView data = g_data.Fill(100 + c.m * 7 + c.p, c.m, c.p,
                                           kind == LossKind::kSquared);
      const Loss loss = MakeLoss(kind);
      for (ProxMethod method : {ProxMethod::kNewtonCg, ProxMethod::kAuto}) {
        Workspace ws = MakeWorkspace(0);
        ProxSolver solver;
        ASSERT_TRUE(solver.Init(ws, data, loss, method).ok());
        Real v[kMaxP];
        Real x[kMaxP] = {};
        FillVector(c.m + c.p, c.v_scale, v, c.p);
        auto report =
            solver.Solve(Span<const Real>(v, c.p), c.s, Span<Real>(x, c.p));
        ASSERT_TRUE(report.ok());
        Real scratch[kMaxP];
        const Real residual = ReferenceKktResidual(
            g_data.features, g_data.labels, c.m, c.p, loss, v, c.s, x, scratch);
        const Real bound = kTol * std::fmax(1.0, Norm(v, c.p) / c.s);
        EXPECT_TRUE(report->converged)
            << "kind " << int(kind) << " m " << c.m << " p " << c.p;
        EXPECT_LE(residual, 2 * bound)
            << "kind " << int(kind) << " m " << c.m << " p " << c.p;
        EXPECT_NEAR(report->kkt_residual, residual, bound);
        EXPECT_GE(report->iterations, 1);
        EXPECT_LE(report->iterations, EDGEADMM_CFG_NEWTON_MAX_ITERATIONS);
      }
    }
  }
}

// The guarantee the exact-prox step needs, in the compute type: φ(x) =
// f(x) + ||x − v||²/(2s) is (1/s)-strongly convex, so ||x − x*|| ≤ s·r for
// the true KKT residual r = ||∇φ(x)|| (evaluated here in double, so a
// float32 solution is judged without float32's rounding of the check). The
// stopping rule bounds r by tol·max(1, ||v||/s); the distance to the exact
// prox is then ≤ tol·max(s, ||v||): 1e-10 relative in double, 16 ε ≈ 1.9e-6
// relative in float32 (docs/porting.md, "The exact prox in float32").
TEST(ProxSolverTest, DistanceToTheExactProxWithinTheStoppingRule) {
  for (LossKind kind : {LossKind::kLogistic, LossKind::kSmoothedHinge}) {
    for (const Case& c : kCases) {
      const DatasetView data = g_data.Fill(300 + c.m * 7 + c.p, c.m, c.p,
                                           /*real_labels=*/false);
      const Loss loss = MakeLoss(kind);
      Workspace ws = MakeWorkspace(0);
      ProxSolver solver;
      ASSERT_TRUE(solver.Init(ws, data, loss, ProxMethod::kNewtonCg).ok());
      Real v[kMaxP];
      Real x[kMaxP] = {};
      FillVector(5 * c.m + c.p, c.v_scale, v, c.p);
      auto report =
          solver.Solve(Span<const Real>(v, c.p), c.s, Span<Real>(x, c.p));
      ASSERT_TRUE(report.ok());
      ASSERT_TRUE(report->converged);
      double scratch[kMaxP];
      const double residual = ReferenceKktResidual<double>(
          g_data.features, g_data.labels, c.m, c.p, loss, v, c.s, x, scratch);
      const double scale = std::fmax(
          1.0, static_cast<double>(Norm(v, c.p)) / static_cast<double>(c.s));
      // The distance bound s·r against the rule's s·tol·scale; the factor 2
      // covers the solver's own (compute-type) evaluation of r.
      EXPECT_LE(
          static_cast<double>(c.s) * residual,
          2 * static_cast<double>(c.s) * static_cast<double>(kTol) * scale)
          << "kind " << int(kind) << " m " << c.m << " p " << c.p
          << " residual " << residual;
    }
  }
}

// Squared loss: the closed form (Sherman–Morrison for m = 1, Woodbury for
// m < p, the p x p system for m > p) and Newton-CG agree.
TEST(ProxSolverTest, ClosedFormAgreesWithNewtonCg) {
  const Case cases[] = {
      {1, 20, 0.5, 1.0}, {7, 30, 3.0, 2.0}, {40, 9, 0.2, 1.0}};
  const Loss loss = MakeLoss(LossKind::kSquared);
  for (const Case& c : cases) {
    const DatasetView data = g_data.Fill(7 * c.m, c.m, c.p, true);
    Workspace ws0 = MakeWorkspace(0);
    Workspace ws1 = MakeWorkspace(1);
    ProxSolver closed;
    ProxSolver newton;
    ASSERT_TRUE(closed.Init(ws0, data, loss, ProxMethod::kClosedForm).ok());
    ASSERT_TRUE(newton.Init(ws1, data, loss, ProxMethod::kNewtonCg).ok());
    EXPECT_EQ(closed.UsesWoodbury(), c.m < c.p);
    Real v[kMaxP];
    FillVector(3, c.v_scale, v, c.p);
    Real x_closed[kMaxP] = {};
    Real x_newton[kMaxP] = {};
    ASSERT_TRUE(
        closed.Solve(Span<const Real>(v, c.p), c.s, Span<Real>(x_closed, c.p))
            .ok());
    ASSERT_TRUE(
        newton.Solve(Span<const Real>(v, c.p), c.s, Span<Real>(x_newton, c.p))
            .ok());
    EXPECT_LE(MaxAbsDiff(x_closed, x_newton, c.p), 1e-6) << "m " << c.m;
    EXPECT_GT(Norm(x_closed, c.p), 0.0);
  }
}

// m = 1 against the Sherman–Morrison formula written out:
// x = r/c − a(aᵀr)/(c(c + ||a||²)), c = 1/s, r = a·b + v/s.
TEST(ProxSolverTest, SingleRecordMatchesShermanMorrison) {
  constexpr size_t kP = 5;
  Real a[kP] = {0.5, -1.0, 2.0, 0.0, 0.25};
  Real b[1] = {0.75};
  auto data = DatasetView::Create(a, b, 1, kP);
  ASSERT_TRUE(data.ok());
  const Real s = 0.4;
  Real v[kP] = {1.0, 2.0, -1.0, 0.5, 0.0};
  const Real c = 1 / s;
  Real r[kP];
  Real ar = 0;
  Real aa = 0;
  for (size_t i = 0; i < kP; ++i) {
    r[i] = a[i] * b[0] + v[i] / s;
    ar += a[i] * r[i];
    aa += a[i] * a[i];
  }
  Workspace ws = MakeWorkspace(0);
  ProxSolver solver;
  ASSERT_TRUE(solver.Init(ws, *data, MakeLoss(LossKind::kSquared)).ok());
  Real x[kP] = {};
  ASSERT_TRUE(solver.Solve(v, s, x).ok());
  for (size_t i = 0; i < kP; ++i) {
    EXPECT_NEAR(x[i], r[i] / c - a[i] * ar / (c * (c + aa)), 1e-14) << i;
  }
}

// The closed form caches its factor per s; changing s and coming back gives
// the same answers as fresh solvers.
TEST(ProxSolverTest, ClosedFormRefactorsWhenStepChanges) {
  for (size_t m : {size_t{6}, size_t{40}}) {
    const size_t p = 12;
    const DatasetView data = g_data.Fill(41, m, p, true);
    const Loss loss = MakeLoss(LossKind::kSquared);
    Real v[kMaxP];
    FillVector(8, 1.0, v, p);
    Real first[kMaxP] = {};
    Real again[kMaxP] = {};
    Real other[kMaxP] = {};
    Workspace ws = MakeWorkspace(0);
    ProxSolver solver;
    ASSERT_TRUE(solver.Init(ws, data, loss).ok());
    ASSERT_TRUE(
        solver.Solve(Span<const Real>(v, p), 0.5, Span<Real>(first, p)).ok());
    ASSERT_TRUE(
        solver.Solve(Span<const Real>(v, p), 4.0, Span<Real>(other, p)).ok());
    ASSERT_TRUE(
        solver.Solve(Span<const Real>(v, p), 0.5, Span<Real>(again, p)).ok());
    EXPECT_LE(MaxAbsDiff(first, again, p), 1e-14);
    EXPECT_GT(MaxAbsDiff(first, other, p), 1e-3);
    Real scratch[kMaxP];
    EXPECT_LE(ReferenceKktResidual(g_data.features, g_data.labels, m, p, loss,
                                   v, 4.0, other, scratch),
              kTol * std::fmax(1.0, Norm(v, p) / 4.0));
  }
}

TEST(ProxSolverTest, WarmStartAtTheSolutionTakesNoStep) {
  const size_t m = 30;
  const size_t p = 10;
  const DatasetView data = g_data.Fill(77, m, p, false);
  Workspace ws = MakeWorkspace(0);
  ProxSolver solver;
  ASSERT_TRUE(solver.Init(ws, data, MakeLoss(LossKind::kLogistic)).ok());
  Real v[kMaxP];
  FillVector(2, 1.0, v, p);
  Real x[kMaxP] = {};
  auto cold = solver.Solve(Span<const Real>(v, p), 1.0, Span<Real>(x, p));
  ASSERT_TRUE(cold.ok());
  EXPECT_GE(cold->iterations, 2);
  auto warm = solver.Solve(Span<const Real>(v, p), 1.0, Span<Real>(x, p));
  ASSERT_TRUE(warm.ok());
  EXPECT_EQ(warm->iterations, 0);
  EXPECT_TRUE(warm->converged);
}

// A narrow hinge (h = 0.01) is nearly non-smooth; the line search still
// reaches the tolerance.
TEST(ProxSolverTest, NarrowSmoothedHingeConverges) {
  const size_t m = 40;
  const size_t p = 10;
  const DatasetView data = g_data.Fill(5, m, p, false);
  const Loss loss = MakeLoss(LossKind::kSmoothedHinge, 0.01);
  Workspace ws = MakeWorkspace(0);
  ProxSolver solver;
  ASSERT_TRUE(solver.Init(ws, data, loss).ok());
  Real v[kMaxP];
  FillVector(6, 4.0, v, p);
  Real x[kMaxP] = {};
  auto report = solver.Solve(Span<const Real>(v, p), 50.0, Span<Real>(x, p));
  ASSERT_TRUE(report.ok());
  EXPECT_TRUE(report->converged) << report->kkt_residual;
  Real scratch[kMaxP];
  EXPECT_LE(ReferenceKktResidual(g_data.features, g_data.labels, m, p, loss, v,
                                 50.0, x, scratch),
            2 * kTol * std::fmax(1.0, Norm(v, p) / 50.0));
}

TEST(ProxSolverTest, InitErrors) {
  const DatasetView data = g_data.Fill(1, 10, 5, false);
  ProxSolver solver;
  Workspace ws = MakeWorkspace(0);
  EXPECT_EQ(solver.Init(ws, DatasetView(), MakeLoss(LossKind::kLogistic)),
            Status::InvalidArgument());
  EXPECT_EQ(solver.Init(ws, data, MakeLoss(LossKind::kLogistic),
                        ProxMethod::kClosedForm),
            Status::InvalidArgument());
  EXPECT_EQ(solver.Init(ws, data, MakeLoss(LossKind::kSmoothedHinge, 0.0)),
            Status::InvalidArgument());
  EXPECT_EQ(solver.Init(ws, data, MakeLoss(LossKind::kLogistic),
                        static_cast<ProxMethod>(5)),
            Status::InvalidArgument());
  EXPECT_EQ(ws.used(), 0u);
  for (LossKind kind : kKinds) {
    const size_t need =
        ProxSolver::WorkspaceBytes(kind, ProxMethod::kAuto, 10, 5);
    // One byte short fails; exactly enough succeeds at any alignment.
    Workspace short_ws(ByteSpan(g_memory[1], need - 1));
    EXPECT_EQ(solver.Init(short_ws, data, MakeLoss(kind)),
              Status::ResourceExhausted());
    for (size_t offset : {size_t{0}, size_t{8}, size_t{3}}) {
      Workspace exact(ByteSpan(g_memory[1] + offset, need));
      EXPECT_TRUE(solver.Init(exact, data, MakeLoss(kind)).ok()) << offset;
    }
  }
}

// InitFor<loss> picks the method kAuto would (only that one is linked),
// gives the same result as Init, and refuses a loss of another kind.
TEST(ProxSolverTest, InitForMatchesInit) {
  const Case c{25, 12, 2.0, 1.5};
  const DatasetView data = g_data.Fill(11, c.m, c.p, false);
  const Loss loss = MakeLoss(LossKind::kLogistic);
  Workspace ws0 = MakeWorkspace(0);
  Workspace ws1 = MakeWorkspace(1);
  ProxSolver by_init;
  ProxSolver by_init_for;
  ASSERT_TRUE(by_init.Init(ws0, data, loss).ok());
  ASSERT_TRUE(by_init_for.InitFor<LossKind::kLogistic>(ws1, data, loss).ok());
  EXPECT_EQ(by_init_for.method(), ProxMethod::kNewtonCg);
  EXPECT_EQ(ws0.used(), ws1.used());
  Real v[kMaxP];
  FillVector(5, c.v_scale, v, c.p);
  Real x0[kMaxP] = {};
  Real x1[kMaxP] = {};
  ASSERT_TRUE(
      by_init.Solve(Span<const Real>(v, c.p), c.s, Span<Real>(x0, c.p)).ok());
  ASSERT_TRUE(
      by_init_for.Solve(Span<const Real>(v, c.p), c.s, Span<Real>(x1, c.p))
          .ok());
  EXPECT_EQ(MaxAbsDiff(x0, x1, c.p), 0.0);

  Workspace ws2 = MakeWorkspace(0);
  ProxSolver squared;
  ASSERT_TRUE(squared
                  .InitFor<LossKind::kSquared>(ws2,
                                               g_data.Fill(11, c.m, c.p, true),
                                               MakeLoss(LossKind::kSquared))
                  .ok());
  EXPECT_EQ(squared.method(), ProxMethod::kClosedForm);
  Workspace ws3 = MakeWorkspace(1);
  EXPECT_EQ(by_init_for.InitFor<LossKind::kSquared>(ws3, data, loss),
            Status::InvalidArgument());
  EXPECT_EQ(
      by_init_for.Solve(Span<const Real>(v, c.p), c.s, Span<Real>(x1, c.p))
          .status(),
      Status::FailedPrecondition());
}

TEST(ProxSolverTest, SolveErrors) {
  const size_t p = 5;
  const DatasetView data = g_data.Fill(2, 10, p, false);
  Real v[p] = {0.1, 0.2, 0.3, 0.4, 0.5};
  Real x[p] = {};
  ProxSolver solver;
  EXPECT_EQ(solver.Solve(v, 1.0, x).status(), Status::FailedPrecondition());
  Workspace ws = MakeWorkspace(0);
  ASSERT_TRUE(solver.Init(ws, data, MakeLoss(LossKind::kLogistic)).ok());
  const Status bad = Status::InvalidArgument();
  EXPECT_EQ(solver.Solve(v, 0.0, x).status(), bad);
  EXPECT_EQ(solver.Solve(v, -1.0, x).status(), bad);
  EXPECT_EQ(solver.Solve(v, NAN, x).status(), bad);
  EXPECT_EQ(solver.Solve(v, INFINITY, x).status(), bad);
  EXPECT_EQ(solver.Solve(Span<const Real>(v, p - 1), 1.0, x).status(), bad);
  EXPECT_EQ(solver.Solve(v, 1.0, Span<Real>(x, p - 1)).status(), bad);
  v[2] = NAN;
  EXPECT_EQ(solver.Solve(v, 1.0, x).status(), bad);
  v[2] = 0.3;
  x[4] = INFINITY;
  EXPECT_EQ(solver.Solve(v, 1.0, x).status(), bad);
  EXPECT_EQ(x[4], INFINITY);  // untouched on error
  x[4] = 0;
  EXPECT_TRUE(solver.Solve(v, 1.0, x).ok());
  // A failed Init leaves the solver unusable.
  Workspace tiny(ByteSpan(g_memory[1], 8));
  EXPECT_EQ(solver.Init(tiny, data, MakeLoss(LossKind::kLogistic)),
            Status::ResourceExhausted());
  EXPECT_EQ(solver.Solve(v, 1.0, x).status(), Status::FailedPrecondition());
}

}  // namespace
}  // namespace edgeadmm
