// Host-only prox tests: real a9a shards (1, 32 and 325 records, p = 123), a
// wide synthetic problem (p = 5000); every Solve runs inside a NoHeapScope
// (tests/support), so an allocation after Init fails the test.
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "edgeadmm/dataio/libsvm_reader.h"
#include "edgeadmm/prox_solver.h"
#include "gtest/gtest.h"
#include "math_test_support.h"
#include "no_heap_check.h"

namespace edgeadmm {
namespace {

using math_testing::Norm;
using math_testing::ReferenceKktResidual;
using math_testing::TestRng;

constexpr size_t kA9aDim = 123;
constexpr Real kTol = EDGEADMM_CFG_NEWTON_TOLERANCE;

std::string DataPath(const char* file) {
  const char* dir = std::getenv("EDGEADMM_DATA");
  return std::string(dir != nullptr ? dir : "../shared/data") + "/" + file;
}

const DenseDataset& A9a() {
  static const DenseDataset* data = [] {
    auto loaded = ReadLibsvmFile(DataPath("a9a.xz"), kA9aDim);
    EXPECT_TRUE(loaded.ok()) << loaded.error().ToString();
    return new DenseDataset(loaded.ok() ? std::move(loaded).value()
                                        : DenseDataset());
  }();
  return *data;
}

Loss MakeLoss(LossKind kind) {
  Loss loss;
  loss.kind = kind;
  loss.smoothing = 0.5;
  return loss;
}

struct Outcome {
  ProxReport report;
  Real reference_residual;
  Real bound;
  size_t heap_allocations;
};

// Solves prox_{s f}(v) on `view` (rows starting at `features`) and checks
// the residual from scratch.
Outcome SolveAndCheck(const DatasetView& view, const Real* features,
                      const Real* labels, const Loss& loss, ProxMethod method,
                      const std::vector<Real>& v, Real s,
                      std::vector<Real>& x) {
  std::vector<std::byte> memory(ProxSolver::WorkspaceBytes(
      loss.kind, method, view.samples(), view.dim()));
  Workspace ws{ByteSpan(memory.data(), memory.size())};
  ProxSolver solver;
  EXPECT_TRUE(solver.Init(ws, view, loss, method).ok());
  Outcome out{};
  Result<ProxReport> report = Status::Unknown();
  {
    NoHeapScope scope;
    report = solver.Solve(Span<const Real>(v.data(), v.size()), s,
                          Span<Real>(x.data(), x.size()));
    out.heap_allocations = scope.End();
  }
  EXPECT_TRUE(report.ok());
  if (report.ok()) out.report = *report;
  std::vector<Real> scratch(view.dim());
  out.reference_residual =
      ReferenceKktResidual(features, labels, view.samples(), view.dim(), loss,
                           v.data(), s, x.data(), scratch.data());
  out.bound = kTol * std::fmax(1.0, Norm(v.data(), v.size()) / s);
  return out;
}

TEST(ProxSolverHostTest, A9aShardsSatisfyProxOptimalityForEveryLoss) {
  const DenseDataset& a9a = A9a();
  ASSERT_EQ(a9a.samples, 32561u);
  for (size_t m : {size_t{1}, size_t{32}, size_t{325}}) {
    const size_t first = 1000;  // a shard away from the file start
    auto view = a9a.Shard(first, m);
    ASSERT_TRUE(view.ok());
    const Real* features = a9a.features.data() + first * kA9aDim;
    const Real* labels = a9a.labels.data() + first;
    for (LossKind kind :
         {LossKind::kLogistic, LossKind::kSquared, LossKind::kSmoothedHinge}) {
      for (Real s : {0.1, 10.0}) {
        std::vector<Real> v(kA9aDim);
        TestRng rng(m + 17);
        for (Real& vi : v) vi = rng.Uniform(-1, 1);
        std::vector<Real> x(kA9aDim, 0.0);
        const Outcome out =
            SolveAndCheck(*view, features, labels, MakeLoss(kind),
                          ProxMethod::kAuto, v, s, x);
        EXPECT_TRUE(out.report.converged)
            << "m " << m << " kind " << int(kind) << " s " << s;
        EXPECT_LE(out.reference_residual, 2 * out.bound)
            << "m " << m << " kind " << int(kind) << " s " << s;
        EXPECT_NEAR(out.report.kkt_residual, out.reference_residual, out.bound);
        EXPECT_EQ(out.heap_allocations, 0u) << LastHeapViolation();
      }
    }
  }
}

TEST(ProxSolverHostTest, A9aClosedFormAgreesWithNewtonCg) {
  const DenseDataset& a9a = A9a();
  for (size_t m : {size_t{1}, size_t{32}, size_t{325}}) {
    auto view = a9a.Shard(0, m);
    ASSERT_TRUE(view.ok());
    // Real-valued targets for the squared loss: the ±1 labels.
    std::vector<Real> v(kA9aDim);
    TestRng rng(m);
    for (Real& vi : v) vi = rng.Uniform(-2, 2);
    std::vector<Real> closed(kA9aDim, 0.0);
    std::vector<Real> newton(kA9aDim, 0.0);
    const Loss loss = MakeLoss(LossKind::kSquared);
    const Outcome a =
        SolveAndCheck(*view, a9a.features.data(), a9a.labels.data(), loss,
                      ProxMethod::kClosedForm, v, 1.0, closed);
    const Outcome b =
        SolveAndCheck(*view, a9a.features.data(), a9a.labels.data(), loss,
                      ProxMethod::kNewtonCg, v, 1.0, newton);
    EXPECT_TRUE(a.report.converged && b.report.converged) << m;
    EXPECT_EQ(a.heap_allocations, 0u) << LastHeapViolation();
    Real diff = 0;
    for (size_t i = 0; i < kA9aDim; ++i) {
      diff = std::fmax(diff, std::fabs(closed[i] - newton[i]));
    }
    EXPECT_LE(diff, 1e-6) << "m " << m;
  }
}

// p = 5000 (synthetic, m = 64 < p: the closed form uses Woodbury with a
// 64 x 64 factor instead of 5000 x 5000).
TEST(ProxSolverHostTest, WideSyntheticProblem) {
  constexpr size_t kM = 64;
  constexpr size_t kP = 5000;
  std::vector<Real> a(kM * kP);
  std::vector<Real> b(kM);
  TestRng rng(99);
  for (Real& value : a) value = rng.Uniform() < 0.9 ? 0 : rng.Uniform(-1, 1);
  for (Real& label : b) label = rng.Sign();
  auto view = DatasetView::Create(Span<const Real>(a.data(), a.size()),
                                  Span<const Real>(b.data(), b.size()), kM, kP);
  ASSERT_TRUE(view.ok());
  std::vector<Real> v(kP);
  for (Real& vi : v) vi = rng.Uniform(-0.1, 0.1);
  std::vector<Real> closed(kP, 0.0);
  std::vector<Real> newton(kP, 0.0);
  const Loss squared = MakeLoss(LossKind::kSquared);
  EXPECT_LT(ProxSolver::WorkspaceBytes(LossKind::kSquared,
                                       ProxMethod::kClosedForm, kM, kP),
            kP * kP * sizeof(Real) / 100);
  const Outcome c = SolveAndCheck(*view, a.data(), b.data(), squared,
                                  ProxMethod::kClosedForm, v, 2.0, closed);
  const Outcome n = SolveAndCheck(*view, a.data(), b.data(), squared,
                                  ProxMethod::kNewtonCg, v, 2.0, newton);
  EXPECT_LE(c.reference_residual, 2 * c.bound);
  EXPECT_LE(n.reference_residual, 2 * n.bound);
  Real diff = 0;
  for (size_t i = 0; i < kP; ++i) {
    diff = std::fmax(diff, std::fabs(closed[i] - newton[i]));
  }
  EXPECT_LE(diff, 1e-6);
  std::vector<Real> x(kP, 0.0);
  const Outcome l =
      SolveAndCheck(*view, a.data(), b.data(), MakeLoss(LossKind::kLogistic),
                    ProxMethod::kAuto, v, 2.0, x);
  EXPECT_TRUE(l.report.converged);
  EXPECT_LE(l.reference_residual, 2 * l.bound);
  EXPECT_EQ(l.heap_allocations, 0u) << LastHeapViolation();
}

}  // namespace
}  // namespace edgeadmm
