// PlanPpGradientSolve / RunPpGradientSolve: the proven-budget gradient descent
// of pp-admm's release lands within the asked radius of the prox solver's
// minimiser; PpCertifiedDistance bounds a given point's distance to it from
// above, and not loosely. Portable.
#include "edgeadmm/pp_gradient_solve.h"

#include <cmath>
#include <limits>

#include "edgeadmm/penalty_schedule.h"
#include "edgeadmm/prox_solver.h"
#include "gtest/gtest.h"
#include "synthetic_data.h"

namespace edgeadmm {
namespace {

constexpr size_t kSamples = 40;
constexpr size_t kDim = 6;
constexpr size_t kBytes = ProxSolver::WorkspaceBytes(
    LossKind::kLogistic, ProxMethod::kAuto, kSamples, kDim);

struct Problem {
  testing::SyntheticData<kSamples, kDim> data{5};
  DatasetView view = data.View();
  Loss loss;
  Real v[kDim];
  Real reference[kDim];
  double reference_error = 0;  // ‖reference − x*‖ by the prox residual
  double lambda = 3;

  Problem() {
    testing::Lcg rng(8);
    for (size_t c = 0; c < kDim; ++c) v[c] = 2 * rng.Next();
    alignas(Workspace::kAlignment) static std::byte memory[kBytes];
    Workspace ws(ByteSpan(memory, kBytes));
    ProxSolver solver;
    EXPECT_TRUE(solver.Init(ws, view, loss).ok());
    for (size_t c = 0; c < kDim; ++c) reference[c] = v[c];
    auto report = solver.Solve(v, static_cast<Real>(lambda), reference);
    EXPECT_TRUE(report.ok() && report->converged);
    reference_error = lambda * static_cast<double>(report->kkt_residual);
  }

  double CentreNorm() const {
    double sum = 0;
    for (Real e : v) sum += static_cast<double>(e) * static_cast<double>(e);
    return std::sqrt(sum);
  }

  // Plans for ‖v‖ itself and runs the plan into x.
  Result<PpGradientPlan> Solve(double radius, Real* x) {
    double work_x[kDim], work_grad[kDim];
    EDGEADMM_TRY_ASSIGN(
        const PpGradientPlan plan,
        PlanPpGradientSolve(view, loss, lambda, radius, CentreNorm()));
    EDGEADMM_TRY(RunPpGradientSolve(plan, view, loss, Span<const Real>(v, kDim),
                                    work_x, work_grad, Span<Real>(x, kDim)));
    return plan;
  }

  double DistanceToReference(const Real* x) const {
    double sum = 0;
    for (size_t c = 0; c < kDim; ++c) {
      const double e = static_cast<double>(x[c]) - reference[c];
      sum += e * e;
    }
    return std::sqrt(sum);
  }
};

TEST(PpGradientSolveTest, LandsWithinTheRadiusOfTheMinimiser) {
  Problem p;
  for (double radius : {100 * kPpDefaultOutputRadius, kPpDefaultOutputRadius}) {
    Real x[kDim];
    auto report = p.Solve(radius, x);
    ASSERT_TRUE(report.ok()) << radius;
    EXPECT_GT(report->steps, 0u);
    EXPECT_LT(report->floor, radius);
    EXPECT_LE(report->bound, radius);
    EXPECT_LE(p.DistanceToReference(x), radius + p.reference_error) << radius;
    // The steps matter: the start v itself is farther than the radius.
    EXPECT_GT(p.DistanceToReference(p.v), radius + p.reference_error);
  }
}

TEST(PpGradientSolveTest, NoStepWhenTheStartIsCloseEnough) {
  Problem p;
  Real x[kDim];
  // ‖v − x*‖ ≤ λG = 3 (‖a‖ ≤ 1, |b| = 1): radius 4 needs no step.
  auto report = p.Solve(4, x);
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->steps, 0u);
  for (size_t c = 0; c < kDim; ++c) EXPECT_EQ(x[c], p.v[c]) << c;
  EXPECT_LE(p.DistanceToReference(x), 3 + p.reference_error);
}

TEST(PpGradientSolveTest, RefusesBelowItsFloorAndBadInput) {
  Problem p;
  const double bound = p.CentreNorm();
  EXPECT_EQ(
      PlanPpGradientSolve(p.view, p.loss, p.lambda, 1e-300, bound).status(),
      Status::Aborted());
  Loss squared;
  squared.kind = LossKind::kSquared;  // no finite Lipschitz bound
  EXPECT_EQ(PlanPpGradientSolve(p.view, squared, p.lambda, 1, bound).status(),
            Status::Aborted());
  EXPECT_EQ(PlanPpGradientSolve(p.view, p.loss, 0, 1, bound).status(),
            Status::InvalidArgument());
  EXPECT_EQ(PlanPpGradientSolve(p.view, p.loss, p.lambda, 1, -1).status(),
            Status::InvalidArgument());
  auto plan = PlanPpGradientSolve(p.view, p.loss, p.lambda, 1, bound);
  ASSERT_TRUE(plan.ok());
  double work_x[kDim], work_grad[kDim];
  Real x[kDim];
  EXPECT_EQ(RunPpGradientSolve(*plan, p.view, p.loss, p.v,
                               Span<double>(work_x, kDim - 1), work_grad, x),
            Status::InvalidArgument());
  // A centre beyond the bound the plan was made for is refused.
  plan->centre_bound = bound * (1 - 1e-6);
  EXPECT_EQ(
      RunPpGradientSolve(*plan, p.view, p.loss, p.v, work_x, work_grad, x),
      Status::InvalidArgument());
}

// The certificate of a point x near the minimiser is at least its distance
// to x* (the reference is within reference_error of x*) and at most L times
// it plus the gradient error (φ is L-smooth); a point beyond the plan's
// reach and a non-finite one get +inf.
TEST(PpGradientSolveTest, CertificateBoundsTheDistanceFromAbove) {
  Problem p;
  auto plan =
      PlanPpGradientSolve(p.view, p.loss, p.lambda, 1e-2, p.CentreNorm());
  ASSERT_TRUE(plan.ok());
  double work_x[kDim], work_grad[kDim];
  int checked = 0;
  for (double delta : {1e-4, 1e-3, 1e-2}) {
    for (size_t c = 0; c < kDim; ++c) {
      Real x[kDim];
      for (size_t i = 0; i < kDim; ++i) x[i] = p.reference[i];
      x[c] += static_cast<Real>(delta);
      const double distance = p.DistanceToReference(x);
      auto certified =
          PpCertifiedDistance(*plan, p.view, p.loss, p.v, x, work_x, work_grad);
      ASSERT_TRUE(certified.ok());
      EXPECT_GE(*certified, distance - p.reference_error) << delta << " " << c;
      EXPECT_LE(*certified, plan->smoothness * (distance + p.reference_error) +
                                2 * plan->gradient_error)
          << delta << " " << c;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 18);
  Real far[kDim];
  for (size_t i = 0; i < kDim; ++i) far[i] = static_cast<Real>(2 * plan->reach);
  auto certified =
      PpCertifiedDistance(*plan, p.view, p.loss, p.v, far, work_x, work_grad);
  ASSERT_TRUE(certified.ok());
  EXPECT_TRUE(std::isinf(*certified));
  far[0] = std::numeric_limits<Real>::quiet_NaN();
  certified =
      PpCertifiedDistance(*plan, p.view, p.loss, p.v, far, work_x, work_grad);
  ASSERT_TRUE(certified.ok());
  EXPECT_TRUE(std::isinf(*certified));
  EXPECT_EQ(
      PpCertifiedDistance(*plan, p.view, p.loss, p.v,
                          Span<const Real>(far, kDim - 1), work_x, work_grad)
          .status(),
      Status::InvalidArgument());
}

// The plan reads no record: two datasets of the same size in the domain
// (‖a‖ ≤ 1 up to rounding, |b| ≤ 1) get the same budget and floor.
TEST(PpGradientSolveTest, ThePlanDoesNotDependOnTheRecords) {
  Problem p;
  testing::SyntheticData<kSamples, kDim> other{77};
  for (Real& a : other.features) a *= 0.5;  // other records, smaller rows
  const DatasetView other_view = other.View();
  ASSERT_LE(other_view.MaxRowNorm(), 1 + 0x1p-20);
  ASSERT_NE(other_view.MaxRowNorm(), p.view.MaxRowNorm());
  for (double radius : {100 * kPpDefaultOutputRadius, kPpDefaultOutputRadius}) {
    auto mine = PlanPpGradientSolve(p.view, p.loss, p.lambda, radius, 5.0);
    auto theirs =
        PlanPpGradientSolve(other_view, p.loss, p.lambda, radius, 5.0);
    ASSERT_TRUE(mine.ok() && theirs.ok());
    EXPECT_EQ(mine->steps, theirs->steps);
    EXPECT_EQ(mine->floor, theirs->floor);
    EXPECT_EQ(mine->bound, theirs->bound);
  }
}

}  // namespace
}  // namespace edgeadmm
