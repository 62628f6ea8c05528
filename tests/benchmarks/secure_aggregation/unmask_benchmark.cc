// The gateway's SecAgg+ unmasking (aggregator/secure_aggregation) for one
// round of n devices, 10% of them dropped after the share phase: UnmaskSum
// (commitment checks, the survivors' self masks, one X25519 check and k
// pairwise seeds per dropped device) against the plain sum of the same
// vectors (the job without secure aggregation). The masked vectors are
// random: the cost does not depend on their values.
#include <array>
#include <chrono>
#include <vector>

#include "benchmark/benchmark.h"
#include "edgeadmm/drbg.h"
#include "edgeadmm/fake/test_entropy.h"
#include "edgeadmm/secagg/key_agreement.h"
#include "edgeadmm/secagg/masked_input.h"
#include "edgeadmm/secure_aggregation/parameters.h"
#include "edgeadmm/secure_aggregation/unmasking.h"

namespace edgeadmm::secure_aggregation {
namespace {

using Key = std::array<std::byte, 32>;
constexpr size_t kWords = 123;
constexpr uint64_t kRound = 3;

ConstByteSpan C(const Key& k) { return ConstByteSpan(k.data(), k.size()); }
ByteSpan M(Key& k) { return ByteSpan(k.data(), k.size()); }

struct Round {
  NeighbourGraph graph;
  std::vector<Key> seed, commitment, mask_private, mask_public;
  std::vector<std::vector<uint32_t>> masked;
  std::vector<Survivor> survivors;
  std::vector<Dropped> dropped;
};

void Build(uint32_t n, Round& r, Drbg& drbg, uint32_t& degree) {
  SecAggGoal goal;
  goal.devices = n;
  goal.corrupt = n / 20;
  goal.dropouts = n / 10;
  degree = ChooseSecAggParameters(goal)->degree;
  Key graph_seed{};
  (void)r.graph.Init(C(graph_seed), n, degree);
  r.seed.resize(n);
  r.commitment.resize(n);
  r.mask_private.resize(n);
  r.mask_public.resize(n);
  r.masked.assign(n, std::vector<uint32_t>(kWords));
  for (uint32_t i = 0; i < n; ++i) {
    (void)drbg.Generate(M(r.seed[i]));
    (void)CommitSelfSeed(kRound, i, C(r.seed[i]), M(r.commitment[i]));
    (void)X25519KeyPair(drbg, M(r.mask_private[i]), M(r.mask_public[i]));
    (void)drbg.Generate(
        ByteSpan(reinterpret_cast<std::byte*>(r.masked[i].data()), 4 * kWords));
    if (i % 10 == 0) {
      r.dropped.push_back({i, C(r.mask_private[i]), C(r.mask_public[i])});
    } else {
      r.survivors.push_back(
          {i, Span<const uint32_t>(r.masked[i].data(), kWords), C(r.seed[i]),
           C(r.commitment[i]), C(r.mask_public[i])});
    }
  }
}

void BM_UnmaskSum(benchmark::State& state) {
  const uint32_t n = static_cast<uint32_t>(state.range(0));
  TestEntropy entropy(n);
  Drbg drbg;
  (void)drbg.Init(entropy, ConstByteSpan());
  Round r;
  uint32_t degree = 0;
  Build(n, r, drbg, degree);
  UnmaskRequest request;
  request.round_id = kRound;
  request.graph = &r.graph;
  request.survivors =
      Span<const Survivor>(r.survivors.data(), r.survivors.size());
  request.dropped = Span<const Dropped>(r.dropped.data(), r.dropped.size());
  std::vector<uint32_t> sum(kWords);
  double plain_seconds = 0;
  for (auto _ : state) {
    if (!UnmaskSum(request, drbg, Span<uint32_t>(sum.data(), kWords)).ok()) {
      state.SkipWithError("UnmaskSum failed");
      return;
    }
    state.PauseTiming();
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<uint32_t> plain(kWords, 0);
    for (const Survivor& s : r.survivors) {
      for (size_t w = 0; w < kWords; ++w) plain[w] += s.masked[w];
    }
    benchmark::DoNotOptimize(plain.data());
    plain_seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
            .count();
    state.ResumeTiming();
  }
  state.counters["k"] = degree;
  state.counters["dropped"] = static_cast<double>(r.dropped.size());
  state.counters["plain_sum_s"] =
      plain_seconds / static_cast<double>(state.iterations());
}
BENCHMARK(BM_UnmaskSum)
    ->Arg(1000)
    ->Arg(10000)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace edgeadmm::secure_aggregation

BENCHMARK_MAIN();
