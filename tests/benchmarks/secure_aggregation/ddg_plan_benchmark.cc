// Planning a secure-aggregation job: ChooseDdgParameters (b, the grid step
// and the devices' discrete Gaussian sigma from the target epsilon) for
// a9a-shaped jobs (d = 124 uploaded words, delta = 1e-5, t = 1, C = 1):
//   /n/1/10/10   scripts/repro a9a's goal: epsilon 1, 10 rounds, D = n/10
//   /n/8/5/20    scripts/secagg-benchmark's: epsilon 8, 5 rounds, D = n/20
// at n = 1,000, 10,000 and 32,561 devices. `job create` and the daemon's job
// load run it once per secure job. Counters: evaluations of the distributed
// discrete Gaussian's RDP curve per plan (each one the bound's minimum over n'
// <= n at every order), and the time per evaluation.
#include <cstdint>

#include "benchmark/benchmark.h"
#include "edgeadmm/secure_aggregation/ddg_parameters.h"

namespace edgeadmm::secure_aggregation {
namespace {

DdgGoal A9aGoal(uint32_t n, double epsilon, uint64_t rounds,
                uint32_t dropout_divisor) {
  DdgGoal goal;
  goal.epsilon = epsilon;
  goal.delta = 1e-5;
  goal.rounds = rounds;
  goal.cohort = n;
  goal.colluders = 1;
  goal.dropouts = n / dropout_divisor;
  goal.dimension = 124;
  goal.clip = 1.0;
  return goal;
}

void BM_ChooseDdgParameters(benchmark::State& state) {
  const DdgGoal goal = A9aGoal(static_cast<uint32_t>(state.range(0)),
                               static_cast<double>(state.range(1)),
                               static_cast<uint64_t>(state.range(2)),
                               static_cast<uint32_t>(state.range(3)));
  DdgParameters chosen;
  for (auto _ : state) {
    const auto p = ChooseDdgParameters(goal);
    if (!p.ok()) {
      state.SkipWithError("ChooseDdgParameters failed");
      return;
    }
    chosen = *p;
    benchmark::DoNotOptimize(chosen);
  }
  state.counters["bits"] = chosen.bits;
  state.counters["gamma"] = chosen.gamma;
  state.counters["sigma_grid"] = chosen.sigma_grid;
  state.counters["epsilon"] = chosen.epsilon;
}
BENCHMARK(BM_ChooseDdgParameters)
    ->ArgsProduct({{1000, 10000, 32561}, {1}, {10}, {10}})
    ->ArgsProduct({{1000, 10000, 32561}, {8}, {5}, {20}})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace
}  // namespace edgeadmm::secure_aggregation

BENCHMARK_MAIN();
