// PLD accountant vs RDP accountant on 10^4 heterogeneous rounds
// (Poisson-subsampled Gaussian, add/remove; 20 distinct (q, nu), 500 rounds
// each), delta = 1e-5. One run prints, as counters of BM_PldVsRdp10kRounds,
// both epsilons, their ratio, both times and the time ratio, and the PLD
// against its two goals (issue 31): pld_s_over_goal = PLD seconds / 1 s
// (goal <= 1), and eps_fine_rel = eps / eps on a grid 4x finer than the one
// that gave the answer, minus 1 (both upper bounds; goal <= 0.01):
//   BM_PldVsRdp10kRounds   compose 10^4 rounds with each accountant (cold:
//                          no cached curves / PLDs) and convert
//   BM_Pld10kRounds        the PLD accountant alone
//   BM_Pld10kRoundsDistinct/d  the PLD accountant on 10^4 rounds of d
//                          distinct (q, nu) (cost per distinct mechanism)
//   BM_Rdp10kRoundsCold    the RDP accountant alone, new curves each time
// Run: build/<dir>/tests/benchmarks/privacy/pld_benchmark
#include <benchmark/benchmark.h>

#include <chrono>
#include <cmath>

#include "edgeadmm/privacy/composition.h"
#include "edgeadmm/privacy/pld_accountant.h"

namespace edgeadmm::privacy {
namespace {

constexpr int kRounds = 10000;
constexpr double kDelta = 1e-5;

// Round r: rate 0.001..0.004, noise multiplier 0.9..1.3.
double RateOf(int r) { return 0.001 * (1 + r % 4); }
double NoiseOf(int r) { return 0.9 + 0.1 * ((r / 4) % 5); }

// Epsilon of the schedule; its grid step in *step when not null.
double PldEpsilonOn(const PldOptions& options, double* step) {
  PldAccountant accountant(options);
  for (int r = 0; r < kRounds; ++r) {
    (void)accountant.Compose(RateOf(r), NoiseOf(r));
  }
  const double eps = accountant.Epsilon(kDelta).value();
  if (step != nullptr) *step = accountant.answer_step();
  return eps;
}

double PldEpsilon() { return PldEpsilonOn(PldOptions{}, nullptr); }

// The same schedule on one grid `factor` times finer than the answer's
// (min_step_fraction 1: no refinement beyond it).
double FinerGridEpsilon(double factor) {
  double step = 0.0;
  (void)PldEpsilonOn(PldOptions{}, &step);
  PldOptions fine;
  fine.step = step / factor;
  fine.min_step_fraction = 1.0;
  return PldEpsilonOn(fine, nullptr);
}

double RdpEpsilon() {
  CurveCache cache;  // cold: every distinct curve computed once
  Accountant accountant;
  for (int r = 0; r < kRounds; ++r) {
    Mechanism m;
    m.kind = MechanismKind::kPoissonSubsampledGaussian;
    m.sampling_rate = RateOf(r);
    m.noise_std = NoiseOf(r);
    (void)accountant.Compose(m, 1, &cache);
  }
  return accountant.Epsilon(kDelta, Conversion::kImproved).value().epsilon;
}

double Seconds(double (*f)(), double* eps) {
  const auto start = std::chrono::steady_clock::now();
  *eps = f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

void BM_PldVsRdp10kRounds(benchmark::State& state) {
  double pld_eps = 0, rdp_eps = 0, pld_s = 0, rdp_s = 0;
  int n = 0;
  for (auto _ : state) {
    pld_s += Seconds(PldEpsilon, &pld_eps);
    rdp_s += Seconds(RdpEpsilon, &rdp_eps);
    ++n;
  }
  state.counters["eps_pld"] = pld_eps;
  state.counters["eps_rdp"] = rdp_eps;
  state.counters["eps_ratio"] = pld_eps / rdp_eps;
  state.counters["pld_ms"] = 1e3 * pld_s / n;
  state.counters["rdp_ms"] = 1e3 * rdp_s / n;
  state.counters["time_ratio"] = pld_s / rdp_s;
  state.counters["pld_s_over_goal"] = pld_s / n / 1.0;  // goal: <= 1 s
  const double fine_eps = FinerGridEpsilon(4.0);
  state.counters["eps_fine"] = fine_eps;
  state.counters["eps_fine_rel"] = pld_eps / fine_eps - 1.0;  // goal <= 0.01
}
BENCHMARK(BM_PldVsRdp10kRounds)->Unit(benchmark::kMillisecond);

void BM_Pld10kRounds(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(PldEpsilon());
}
BENCHMARK(BM_Pld10kRounds)->Unit(benchmark::kMillisecond);

void BM_Pld10kRoundsDistinct(benchmark::State& state) {
  const int distinct = static_cast<int>(state.range(0));
  for (auto _ : state) {
    PldAccountant accountant;
    for (int r = 0; r < kRounds; ++r) {
      const int k = r % distinct;
      (void)accountant.Compose(0.001 + 0.003 * k / distinct,
                               0.9 + 0.4 * ((7 * k) % distinct) / distinct);
    }
    benchmark::DoNotOptimize(accountant.Epsilon(kDelta).value());
  }
}
BENCHMARK(BM_Pld10kRoundsDistinct)
    ->Arg(100)
    ->Arg(1000)
    ->Unit(benchmark::kMillisecond);

void BM_Rdp10kRoundsCold(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(RdpEpsilon());
}
BENCHMARK(BM_Rdp10kRoundsCold)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace edgeadmm::privacy

BENCHMARK_MAIN();
