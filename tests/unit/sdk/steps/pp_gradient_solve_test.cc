// PpGradientSolve: the proven-budget gradient descent of pp-admm's release
// lands within the asked radius of the prox solver's minimiser. Portable.
#include "edgeadmm/pp_gradient_solve.h"

#include <cmath>

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
  double work_x[kDim], work_grad[kDim];
  for (double radius : {100 * kPpDefaultOutputRadius, kPpDefaultOutputRadius}) {
    Real x[kDim];
    auto report = PpGradientSolve(p.view, p.loss, p.v, p.lambda, radius, work_x,
                                  work_grad, x);
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
  double work_x[kDim], work_grad[kDim];
  Real x[kDim];
  // ‖v − x*‖ ≤ λG = 3 (‖a‖ ≤ 1, |b| = 1): radius 4 needs no step.
  auto report =
      PpGradientSolve(p.view, p.loss, p.v, p.lambda, 4, work_x, work_grad, x);
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->steps, 0u);
  for (size_t c = 0; c < kDim; ++c) EXPECT_EQ(x[c], p.v[c]) << c;
  EXPECT_LE(p.DistanceToReference(x), 3 + p.reference_error);
}

TEST(PpGradientSolveTest, RefusesBelowItsFloorAndBadInput) {
  Problem p;
  double work_x[kDim], work_grad[kDim];
  Real x[kDim];
  EXPECT_EQ(PpGradientSolve(p.view, p.loss, p.v, p.lambda, 1e-300, work_x,
                            work_grad, x)
                .status(),
            Status::Aborted());
  Loss squared;
  squared.kind = LossKind::kSquared;  // no finite Lipschitz bound
  EXPECT_EQ(
      PpGradientSolve(p.view, squared, p.v, p.lambda, 1, work_x, work_grad, x)
          .status(),
      Status::Aborted());
  EXPECT_EQ(
      PpGradientSolve(p.view, p.loss, p.v, 0, 1, work_x, work_grad, x).status(),
      Status::InvalidArgument());
  EXPECT_EQ(PpGradientSolve(p.view, p.loss, p.v, p.lambda, 1,
                            Span<double>(work_x, kDim - 1), work_grad, x)
                .status(),
            Status::InvalidArgument());
}

}  // namespace
}  // namespace edgeadmm
