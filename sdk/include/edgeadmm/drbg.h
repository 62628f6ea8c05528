// Drbg: the SDK's deterministic random bit generator for privacy noise.
//
// NIST SP 800-90A CTR_DRBG with AES-256 and derivation function, from Mbed TLS
// (mbedtls/ctr_drbg.h). It is seeded from the platform EntropySource at Init
// (entropy plus a nonce, plus the caller's personalization string) and reseeds
// itself from the same source every EDGEADMM_CFG_DRBG_RESEED_INTERVAL
// generate requests. One request produces at most
// MBEDTLS_CTR_DRBG_MAX_REQUEST (1024) bytes; Generate splits longer outputs
// into several requests and each counts towards the interval.
//
// No heap: the Mbed TLS context is a member. The context is zeroized on
// destruction. Not thread-safe: use one Drbg per thread. It is the
// RandomByteSource of every GaussianSampler in the SDK.
#pragma once

#include <cstdint>

#include "edgeadmm/entropy_source.h"
#include "edgeadmm/random_byte_source.h"
#include "edgeadmm/span.h"
#include "edgeadmm/status.h"
#include "mbedtls/ctr_drbg.h"

namespace edgeadmm {

class Drbg final : public RandomByteSource {
 public:
  Drbg();
  ~Drbg();
  Drbg(const Drbg&) = delete;
  Drbg& operator=(const Drbg&) = delete;

  // Seeds from `entropy`, which is kept by reference for later reseeds and
  // must outlive this object. Calling Init again discards the old state.
  // Returns UNAVAILABLE if the entropy source fails, INVALID_ARGUMENT if the
  // personalization string is longer than kMaxPersonalizationBytes.
  Status Init(EntropySource& entropy, ConstByteSpan personalization);

  // Fills `out` with pseudo-random bytes, reseeding first when the reseed
  // interval is reached. Returns FAILED_PRECONDITION before a successful
  // Init, UNAVAILABLE if a due reseed fails (no bytes are produced then; the
  // next call retries the reseed).
  Status Generate(ByteSpan out) override;

  // Reseeds now from the entropy source, mixing in `additional` (may be
  // empty). Returns FAILED_PRECONDITION before Init, UNAVAILABLE if the
  // entropy source fails, INVALID_ARGUMENT if `additional` is too long.
  Status Reseed(ConstByteSpan additional);

  // Number of reseeds so far (the initial seeding is not counted), continued
  // from RestoreReseedCount. Monotonic; persisted in DeviceState.
  uint32_t reseed_count() const { return reseed_count_; }

  // Continues the count persisted by a previous boot: reseed_count() becomes
  // max(reseed_count(), persisted). Never lowers the count.
  void RestoreReseedCount(uint32_t persisted);

  // True after a successful Init.
  bool initialized() const { return initialized_; }

  // Longest accepted personalization string (Mbed TLS seed input limit minus
  // entropy and nonce) and reseed additional input.
  static constexpr size_t kMaxPersonalizationBytes =
      MBEDTLS_CTR_DRBG_MAX_SEED_INPUT - MBEDTLS_CTR_DRBG_ENTROPY_LEN -
      (MBEDTLS_CTR_DRBG_ENTROPY_NONCE_LEN);
  static constexpr size_t kMaxAdditionalBytes =
      MBEDTLS_CTR_DRBG_MAX_SEED_INPUT - MBEDTLS_CTR_DRBG_ENTROPY_LEN;

 private:
  static int EntropyCallback(void* self, unsigned char* out, size_t size);

  mbedtls_ctr_drbg_context context_;
  EntropySource* entropy_ = nullptr;
  uint32_t requests_since_reseed_ = 0;
  uint32_t reseed_count_ = 0;
  bool initialized_ = false;
};

}  // namespace edgeadmm
