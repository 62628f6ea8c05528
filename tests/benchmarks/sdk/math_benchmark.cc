// Benchmarks of the SDK's numerical core, each next to the raw Eigen limit
// on the same data in the same run:
//   Gradient   LocalGradient (margins, derivatives, Aᵀd/m)
//   Gemv       one A·w over the same mapped matrix
//   GemvPair   A·w and Aᵀ·d (the two products a gradient cannot avoid)
//   Products   the SDK's own A·w and Aᵀ·d (x86-64 double builds: range(1)
//              0 = the SSE2 kernels, 1 = AVX where this CPU has it)
//   Prox*      one full prox solve from x = 0 (Newton-CG for logistic; the
//              closed form for squared, with and without a cached factor)
// Shapes: a9a shards (p = 123, m = 32 and 325) and synthetic p = 5000
// (m = 32 and 325, 10% non-zeros). At the end the ratios
// Gradient/Gemv and Gradient/GemvPair are printed per shape, from CPU time
// (ns per call; CPU rather than wall time because the machine is shared).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "edgeadmm/dataio/libsvm_reader.h"
#include "edgeadmm/dataset_maps.h"
#include "edgeadmm/linear_model.h"
#include "edgeadmm/prox_solver.h"
#include "math/row_kernels_x86.h"

namespace edgeadmm {
namespace {

struct Shape {
  const char* name;
  size_t samples;
  size_t dim;
  bool a9a;
};

constexpr Shape kShapes[] = {{"a9a_m32", 32, 123, true},
                             {"a9a_m325", 325, 123, true},
                             {"p5000_m32", 32, 5000, false},
                             {"p5000_m325", 325, 5000, false}};

const DenseDataset& A9a() {
  static const DenseDataset data = [] {
    const char* dir = std::getenv("EDGEADMM_DATA");
    const std::string path =
        std::string(dir != nullptr ? dir : EDGEADMM_DEFAULT_DATA_DIR) +
        "/a9a.xz";
    auto loaded = ReadLibsvmFile(path, 123);
    if (!loaded.ok()) {
      std::fprintf(stderr, "cannot load a9a: %s\n",
                   loaded.error().message().c_str());
      std::exit(1);
    }
    return std::move(loaded).value();
  }();
  return data;
}

// Deterministic synthetic data (SplitMix64), labels ±1.
DenseDataset Synthetic(size_t m, size_t p) {
  DenseDataset d;
  d.samples = m;
  d.dim = p;
  d.features.resize(m * p);
  d.labels.resize(m);
  uint64_t state = 12345;
  const auto next = [&state] {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return static_cast<double>((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
  };
  for (Real& a : d.features) a = next() < 0.9 ? 0.0 : 2 * next() - 1;
  for (Real& b : d.labels) b = next() < 0.5 ? -1.0 : 1.0;
  return d;
}

struct Problem {
  DenseDataset owned;  // synthetic shapes only
  DatasetView view;
  std::vector<Real> w;
  std::vector<Real> margins;
  std::vector<Real> grad;
};

Problem& GetProblem(int index) {
  static std::map<int, Problem> problems;
  auto it = problems.find(index);
  if (it != problems.end()) return it->second;
  const Shape& shape = kShapes[index];
  Problem& problem = problems[index];
  if (shape.a9a) {
    problem.view = A9a().Shard(0, shape.samples).value();
  } else {
    problem.owned = Synthetic(shape.samples, shape.dim);
    problem.view = problem.owned.View().value();
  }
  problem.w.assign(shape.dim, 0.0);
  for (size_t i = 0; i < shape.dim; ++i) {
    problem.w[i] = 0.01 * static_cast<Real>(i % 7) - 0.03;
  }
  problem.margins.assign(shape.samples, 0.0);
  problem.grad.assign(shape.dim, 0.0);
  return problem;
}

Loss MakeLoss(LossKind kind) {
  Loss loss;
  loss.kind = kind;
  return loss;
}

void BM_Gradient(benchmark::State& state) {
  Problem& pr = GetProblem(static_cast<int>(state.range(0)));
  const Loss loss = MakeLoss(LossKind::kLogistic);
  for (auto _ : state) {
    LocalGradient(pr.view, loss, Span<const Real>(pr.w.data(), pr.w.size()),
                  Span<Real>(pr.margins.data(), pr.margins.size()),
                  Span<Real>(pr.grad.data(), pr.grad.size()));
    benchmark::ClobberMemory();
  }
  state.SetLabel(kShapes[state.range(0)].name);
}

// Experiment, not SDK code: the same gradient in one pass over the rows
// (dot, loss, axpy while the row is in cache), to see what reading A once
// would buy against the two-GEMV form the SDK uses.
void BM_GradientFusedRows(benchmark::State& state) {
  Problem& pr = GetProblem(static_cast<int>(state.range(0)));
  const Loss loss = MakeLoss(LossKind::kLogistic);
  const ConstMatrixMap a = FeaturesMap(pr.view);
  const ConstVectorMap b = LabelsMap(pr.view);
  const ConstVectorMap w(pr.w.data(), static_cast<Eigen::Index>(pr.w.size()));
  VectorMap g(pr.grad.data(), static_cast<Eigen::Index>(pr.grad.size()));
  for (auto _ : state) {
    g.setZero();
    Real sum = 0;
    for (Eigen::Index j = 0; j < a.rows(); ++j) {
      Real d = 0;
      sum += loss.ValueAndDerivative(a.row(j).dot(w), b(j), &d);
      g.noalias() += d * a.row(j).transpose();
    }
    g /= static_cast<Real>(a.rows());
    benchmark::DoNotOptimize(sum);
    benchmark::ClobberMemory();
  }
  state.SetLabel(kShapes[state.range(0)].name);
}

void BM_Gemv(benchmark::State& state) {
  Problem& pr = GetProblem(static_cast<int>(state.range(0)));
  const ConstMatrixMap a = FeaturesMap(pr.view);
  const ConstVectorMap w(pr.w.data(), static_cast<Eigen::Index>(pr.w.size()));
  VectorMap t(pr.margins.data(), static_cast<Eigen::Index>(pr.margins.size()));
  for (auto _ : state) {
    t.noalias() = a * w;
    benchmark::ClobberMemory();
  }
  state.SetLabel(kShapes[state.range(0)].name);
}

void BM_GemvPair(benchmark::State& state) {
  Problem& pr = GetProblem(static_cast<int>(state.range(0)));
  const ConstMatrixMap a = FeaturesMap(pr.view);
  const ConstVectorMap w(pr.w.data(), static_cast<Eigen::Index>(pr.w.size()));
  VectorMap t(pr.margins.data(), static_cast<Eigen::Index>(pr.margins.size()));
  VectorMap g(pr.grad.data(), static_cast<Eigen::Index>(pr.grad.size()));
  for (auto _ : state) {
    t.noalias() = a * w;
    g.noalias() = a.transpose() * t;
    benchmark::ClobberMemory();
  }
  state.SetLabel(kShapes[state.range(0)].name);
}

#if EDGEADMM_ROW_KERNELS_X86
void BM_Products(benchmark::State& state) {
  Problem& pr = GetProblem(static_cast<int>(state.range(0)));
  const auto width = state.range(1) == 0 ? internal::RowKernelWidth::kSse2
                                         : internal::RowKernelWidth::kAvx;
  if (width != internal::RowKernelWidth::kSse2 &&
      internal::HostRowKernelWidth() != width) {
    state.SkipWithError("this CPU has no AVX");
    return;
  }
  const Span<const Real> w(pr.w.data(), pr.w.size());
  const Span<Real> t(pr.margins.data(), pr.margins.size());
  const Span<Real> g(pr.grad.data(), pr.grad.size());
  for (auto _ : state) {
    internal::MultiplyRowsX86(width, pr.view, w, t);
    internal::MultiplyTransposedX86(width, pr.view, t, g);
    benchmark::ClobberMemory();
  }
  state.SetLabel(std::string(kShapes[state.range(0)].name) +
                 (state.range(1) == 0 ? " sse2" : " avx"));
}
#endif

// One prox solve from x = 0; range(1): 0 logistic Newton-CG, 1 squared
// closed form with the factor cached, 2 squared closed form refactored
// every call (s alternates), 3 squared Newton-CG.
void BM_Prox(benchmark::State& state) {
  Problem& pr = GetProblem(static_cast<int>(state.range(0)));
  const int variant = static_cast<int>(state.range(1));
  const Loss loss =
      MakeLoss(variant == 0 ? LossKind::kLogistic : LossKind::kSquared);
  const ProxMethod method = variant == 0 || variant == 3
                                ? ProxMethod::kNewtonCg
                                : ProxMethod::kClosedForm;
  std::vector<std::byte> memory(ProxSolver::WorkspaceBytes(
      loss.kind, method, pr.view.samples(), pr.view.dim()));
  Workspace ws{ByteSpan(memory.data(), memory.size())};
  ProxSolver solver;
  if (!solver.Init(ws, pr.view, loss, method).ok()) {
    state.SkipWithError("Init failed");
    return;
  }
  std::vector<Real> x(pr.view.dim());
  int iterations = 0;
  bool converged = true;
  Real s = 1.0;
  for (auto _ : state) {
    std::fill(x.begin(), x.end(), 0.0);
    if (variant == 2) s = (s == 1.0) ? 1.0 + 1e-9 : 1.0;
    auto report = solver.Solve(Span<const Real>(pr.w.data(), pr.w.size()), s,
                               Span<Real>(x.data(), x.size()));
    iterations = report->iterations;
    converged = converged && report->converged;
    benchmark::ClobberMemory();
  }
  static const char* const kVariants[] = {"logistic_newton", "squared_closed",
                                          "squared_closed_refactor",
                                          "squared_newton"};
  state.SetLabel(std::string(kShapes[state.range(0)].name) + " " +
                 kVariants[variant] + (converged ? "" : " NOT CONVERGED"));
  state.counters["iterations"] = iterations;
}

void AllShapes(benchmark::internal::Benchmark* b) {
  for (int i = 0; i < 4; ++i) b->Arg(i);
}
void AllProx(benchmark::internal::Benchmark* b) {
  for (int i = 0; i < 4; ++i) {
    for (int v = 0; v < 4; ++v) b->Args({i, v});
  }
}

BENCHMARK(BM_Gemv)->Apply(AllShapes);
BENCHMARK(BM_GemvPair)->Apply(AllShapes);
BENCHMARK(BM_Gradient)->Apply(AllShapes);
BENCHMARK(BM_GradientFusedRows)->Apply(AllShapes);
#if EDGEADMM_ROW_KERNELS_X86
BENCHMARK(BM_Products)->ArgsProduct({{0, 1, 2, 3}, {0, 1}});
#endif
BENCHMARK(BM_Prox)->Apply(AllProx)->Unit(benchmark::kMicrosecond);

// Console output plus a record of each run's time for the ratio table.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      if (run.run_type != Run::RT_Iteration) continue;
      seconds_[run.benchmark_name()] =
          run.cpu_accumulated_time / static_cast<double>(run.iterations);
    }
  }
  void PrintRatios() const {
    std::printf("\n%-12s %10s %10s %10s %10s %10s %14s %10s\n", "shape", "Gemv",
                "GemvPair", "Gradient", "Fused", "Grad/Gemv", "Grad/GemvPair",
                "Fused/Gemv");
    for (int i = 0; i < 4; ++i) {
      const std::string arg = "/" + std::to_string(i);
      const auto find = [&](const char* name) {
        auto it = seconds_.find(std::string(name) + arg);
        return it == seconds_.end() ? 0.0 : it->second * 1e9;
      };
      const double gemv = find("BM_Gemv");
      const double pair = find("BM_GemvPair");
      const double grad = find("BM_Gradient");
      const double fused = find("BM_GradientFusedRows");
      if (gemv == 0 || pair == 0 || grad == 0 || fused == 0) continue;
      std::printf("%-12s %10.0f %10.0f %10.0f %10.0f %9.2fx %13.2fx %9.2fx\n",
                  kShapes[i].name, gemv, pair, grad, fused, grad / gemv,
                  grad / pair, fused / gemv);
    }
    // The SDK's two products against Eigen's, per kernel width.
    std::printf("\n%-12s %10s %10s %10s %14s %14s\n", "shape", "GemvPair",
                "SSE2", "AVX", "SSE2/GemvPair", "AVX/GemvPair");
    for (int i = 0; i < 4; ++i) {
      const auto find = [&](const std::string& name) {
        auto it = seconds_.find(name);
        return it == seconds_.end() ? 0.0 : it->second * 1e9;
      };
      const std::string arg = std::to_string(i);
      const double pair = find("BM_GemvPair/" + arg);
      const double sse2 = find("BM_Products/" + arg + "/0");
      const double avx = find("BM_Products/" + arg + "/1");
      if (pair == 0 || sse2 == 0) continue;
      std::printf("%-12s %10.0f %10.0f %10.0f %13.2fx %13.2fx\n",
                  kShapes[i].name, pair, sse2, avx, sse2 / pair, avx / pair);
    }
  }

 private:
  std::map<std::string, double> seconds_;
};

}  // namespace
}  // namespace edgeadmm

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  edgeadmm::RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.PrintRatios();
  benchmark::Shutdown();
  return 0;
}
