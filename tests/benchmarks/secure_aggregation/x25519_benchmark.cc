// X25519 on the host: the SDK's own ladder (sdk/src/secagg/x25519.cc, what
// devices and the gateway's unmasking run) against Mbed TLS's ECP module
// (the implementation the SDK used before), in one run. One iteration does
// one X25519 with each, on the same random scalar and u, and checks that
// they agree; the counters are the mean time of each and their ratio
// (ours / Mbed TLS's: below 1 is faster).
#include <chrono>
#include <cstring>

#include "benchmark/benchmark.h"
#include "edgeadmm/drbg.h"
#include "edgeadmm/fake/test_entropy.h"
#include "edgeadmm/secagg/key_agreement.h"
#include "mbedtls_x25519.h"

namespace edgeadmm {
namespace {

using Clock = std::chrono::steady_clock;

void BM_X25519OursAgainstMbedTls(benchmark::State& state) {
  if (!kMbedTlsHasX25519) {
    state.SkipWithError("this build's Mbed TLS has no Curve25519");
    return;
  }
  TestEntropy entropy{25519};
  Drbg drbg;
  if (!drbg.Init(entropy, ConstByteSpan()).ok()) {
    state.SkipWithError("DRBG");
    return;
  }
  double ours_seconds = 0;
  double mbedtls_seconds = 0;
  int64_t calls = 0;
  for (auto _ : state) {
    unsigned char scalar[32];
    unsigned char u[32];
    unsigned char ours[32];
    unsigned char reference[32];
    (void)drbg.Generate(ByteSpan(reinterpret_cast<std::byte*>(scalar), 32));
    (void)drbg.Generate(ByteSpan(reinterpret_cast<std::byte*>(u), 32));
    const Clock::time_point t0 = Clock::now();
    const Status status =
        X25519(ConstByteSpan(reinterpret_cast<const std::byte*>(scalar), 32),
               ConstByteSpan(reinterpret_cast<const std::byte*>(u), 32), drbg,
               ByteSpan(reinterpret_cast<std::byte*>(ours), 32));
    const Clock::time_point t1 = Clock::now();
    const int rc = MbedTlsX25519(scalar, u, drbg, reference);
    const Clock::time_point t2 = Clock::now();
    if (!status.ok() || rc != 0 || std::memcmp(ours, reference, 32) != 0) {
      state.SkipWithError("the two X25519s disagree");
      return;
    }
    ours_seconds += std::chrono::duration<double>(t1 - t0).count();
    mbedtls_seconds += std::chrono::duration<double>(t2 - t1).count();
    ++calls;
  }
  if (calls == 0) return;
  state.counters["ours_us"] = 1e6 * ours_seconds / calls;
  state.counters["mbedtls_us"] = 1e6 * mbedtls_seconds / calls;
  state.counters["ours_over_mbedtls"] = ours_seconds / mbedtls_seconds;
}
BENCHMARK(BM_X25519OursAgainstMbedTls)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace edgeadmm

BENCHMARK_MAIN();
