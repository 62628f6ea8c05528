// X25519 on the host: the SDK's own ladder (sdk/src/secagg/x25519.cc, what
// Linux devices and the gateway's unmasking run: the radix-2^51 field here)
// against the same ladder on the radix-2^16 field (what 32-bit MCUs run)
// and Mbed TLS's ECP module (the implementation the SDK used before), in
// one run. One iteration does one X25519 with each, on the same random
// scalar and u, and checks that they agree; the counters are the mean time
// of each and the ratios (ours / theirs: below 1 is faster).
#include <chrono>
#include <cstring>

#include "benchmark/benchmark.h"
#include "edgeadmm/drbg.h"
#include "edgeadmm/fake/test_entropy.h"
#include "edgeadmm/secagg/key_agreement.h"
#include "mbedtls_x25519.h"
#include "x25519_field16.h"
#include "x25519_ladder.h"
#include "x25519_scalar.h"

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
  double field16_seconds = 0;
  double mbedtls_seconds = 0;
  int64_t calls = 0;
  for (auto _ : state) {
    unsigned char scalar[32];
    unsigned char u[32];
    unsigned char ours[32];
    unsigned char narrow[32];
    unsigned char reference[32];
    (void)drbg.Generate(ByteSpan(reinterpret_cast<std::byte*>(scalar), 32));
    (void)drbg.Generate(ByteSpan(reinterpret_cast<std::byte*>(u), 32));
    const Clock::time_point t0 = Clock::now();
    const Status status =
        X25519(ConstByteSpan(reinterpret_cast<const std::byte*>(scalar), 32),
               ConstByteSpan(reinterpret_cast<const std::byte*>(u), 32), drbg,
               ByteSpan(reinterpret_cast<std::byte*>(ours), 32));
    const Clock::time_point t1 = Clock::now();
    unsigned char clamped[32];
    std::memcpy(clamped, scalar, 32);
    secagg_internal::ClampX25519Scalar(clamped);
    const Status narrow_status =
        secagg_internal::X25519Ladder<secagg_internal::Field16>(clamped, u,
                                                                drbg, narrow);
    const Clock::time_point t2 = Clock::now();
    const int rc = MbedTlsX25519(scalar, u, drbg, reference);
    const Clock::time_point t3 = Clock::now();
    if (!status.ok() || !narrow_status.ok() || rc != 0 ||
        std::memcmp(ours, reference, 32) != 0 ||
        std::memcmp(narrow, reference, 32) != 0) {
      state.SkipWithError("the two X25519s disagree");
      return;
    }
    ours_seconds += std::chrono::duration<double>(t1 - t0).count();
    field16_seconds += std::chrono::duration<double>(t2 - t1).count();
    mbedtls_seconds += std::chrono::duration<double>(t3 - t2).count();
    ++calls;
  }
  if (calls == 0) return;
  state.counters["ours_us"] = 1e6 * ours_seconds / calls;
  state.counters["field16_us"] = 1e6 * field16_seconds / calls;
  state.counters["mbedtls_us"] = 1e6 * mbedtls_seconds / calls;
  state.counters["ours_over_field16"] = ours_seconds / field16_seconds;
  state.counters["ours_over_mbedtls"] = ours_seconds / mbedtls_seconds;
}
BENCHMARK(BM_X25519OursAgainstMbedTls)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace edgeadmm

BENCHMARK_MAIN();
