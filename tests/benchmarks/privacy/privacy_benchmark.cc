// Cost of privacy accounting for 10^4 heterogeneous rounds on the full order
// grid (156 orders). Side by side:
//   BM_RawVectorAdd            the floor: one 156-double add
//   BM_ComposeRound            one round composed from a warm curve cache
//                              (what the daemon does per round)
//   BM_Report10kRounds         compose 10^4 heterogeneous rounds + convert
//   BM_Conversion/<kind>       one RDP -> (epsilon, delta) conversion
//   BM_NewPoissonCurve         one new Poisson-subsampled curve (cold cache)
//   BM_NewGaussianCurve        one new Gaussian curve (cold cache)
// The counters give time per round; compare BM_ComposeRound to
// BM_RawVectorAdd for the "composition is a vector add" goal.
#include <benchmark/benchmark.h>

#include <cmath>
#include <vector>

#include "edgeadmm/privacy/composition.h"
#include "edgeadmm/privacy/conversion.h"
#include "edgeadmm/privacy/mechanism.h"

namespace edgeadmm::privacy {
namespace {

constexpr int kRounds = 10000;

// Round r of a heterogeneous schedule: the cohort size m_k varies (Gaussian
// with noise multiplier sigma sqrt(m_k) / 2) and every fifth round is a
// Poisson-subsampled round with one of four rates.
Mechanism RoundMechanism(int r) {
  Mechanism m;
  if (r % 5 == 0) {
    m.kind = MechanismKind::kPoissonSubsampledGaussian;
    m.sampling_rate = 0.001 * (1 + (r / 5) % 4);
    m.noise_std = 1.1;
  } else {
    m.neighbouring = Neighbouring::kZeroOut;
    m.sensitivity = 2.0;
    m.noise_std = 1.5 * std::sqrt(20.0 + r % 37);
  }
  return m;
}

CurveCache& WarmCache() {
  static CurveCache* cache = [] {
    auto* c = new CurveCache();
    for (int r = 0; r < kRounds; ++r) (void)c->Get(RoundMechanism(r));
    return c;
  }();
  return *cache;
}

void BM_RawVectorAdd(benchmark::State& state) {
  std::vector<double> a(OrderGrid::Default().size(), 1.0);
  std::vector<double> b(a.size(), 0.5);
  for (auto _ : state) {
    for (size_t i = 0; i < a.size(); ++i) a[i] += b[i];
    benchmark::DoNotOptimize(a.data());
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_RawVectorAdd);

void BM_ComposeRound(benchmark::State& state) {
  CurveCache& cache = WarmCache();
  Accountant accountant;
  int r = 0;
  for (auto _ : state) {
    const host::Error e = accountant.Compose(RoundMechanism(r), 1, &cache);
    benchmark::DoNotOptimize(e.ok());
    r = (r + 1) % kRounds;
  }
}
BENCHMARK(BM_ComposeRound);

void BM_Report10kRounds(benchmark::State& state) {
  CurveCache& cache = WarmCache();
  for (auto _ : state) {
    Accountant accountant;
    for (int r = 0; r < kRounds; ++r) {
      (void)accountant.Compose(RoundMechanism(r), 1, &cache);
    }
    auto report = accountant.Epsilon(1e-5, Conversion::kImproved);
    benchmark::DoNotOptimize(report.ok());
  }
  state.counters["per_round"] = benchmark::Counter(
      kRounds, benchmark::Counter::kIsIterationInvariantRate |
                   benchmark::Counter::kInvert);
  state.counters["distinct_curves"] = static_cast<double>(cache.size());
}
BENCHMARK(BM_Report10kRounds)->Unit(benchmark::kMillisecond);

void BM_Conversion(benchmark::State& state) {
  Accountant accountant;
  (void)accountant.Compose(RoundMechanism(0), kRounds);
  const Conversion conversion =
      state.range(0) == 0 ? Conversion::kClassic : Conversion::kImproved;
  state.SetLabel(ConversionName(conversion));
  for (auto _ : state) {
    auto e = EpsilonFromRdp(accountant.curve(), 1e-5, conversion);
    benchmark::DoNotOptimize(e.ok());
  }
}
BENCHMARK(BM_Conversion)->Arg(0)->Arg(1);

void BM_NewPoissonCurve(benchmark::State& state) {
  double q = 0.001;
  for (auto _ : state) {
    Mechanism m = RoundMechanism(0);
    m.sampling_rate = q;
    q = q < 0.5 ? q * 1.01 : 0.001;  // a new curve every time
    auto curve = ComputeRdpCurve(m, OrderGrid::Default());
    benchmark::DoNotOptimize(curve.ok());
  }
}
BENCHMARK(BM_NewPoissonCurve)->Unit(benchmark::kMillisecond);

void BM_NewGaussianCurve(benchmark::State& state) {
  int r = 1;
  for (auto _ : state) {
    auto curve = ComputeRdpCurve(RoundMechanism(r), OrderGrid::Default());
    benchmark::DoNotOptimize(curve.ok());
    r = (r + 1) % 5 == 0 ? r + 2 : r + 1;  // skip the Poisson rounds
  }
}
BENCHMARK(BM_NewGaussianCurve);

}  // namespace
}  // namespace edgeadmm::privacy

BENCHMARK_MAIN();
