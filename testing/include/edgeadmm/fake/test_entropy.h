// TestEntropy: a deterministic EntropySource for tests. UNSAFE outside tests:
// its bytes are a public function of a 64-bit seed, so anything seeded from
// it (the DRBG, hence all privacy noise) is predictable.
//
// Byte stream: SeededEntropy's (platform/seeded_entropy), SHA-256(seed as 8
// LE bytes ‖ block counter as 8 LE bytes) for counter = 0, 1, 2, ...,
// concatenated; consecutive Reads continue the stream. Failure injection
// lets tests exercise UNAVAILABLE paths.
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/entropy_source.h"
#include "edgeadmm/seeded_entropy/seeded_entropy.h"

namespace edgeadmm {

class TestEntropy final : public EntropySource {
 public:
  explicit TestEntropy(uint64_t seed) : stream_(seed) {}

  // Fills `out` with the next bytes of the stream; UNAVAILABLE while failing
  // (see FailAfterReads), then `out` is zeroed and the stream does not move.
  Status Read(ByteSpan out) override;

  // From now on, allow `reads` more successful Reads, then fail every Read.
  void FailAfterReads(uint32_t reads);
  // Stop failing.
  void StopFailing() { fail_after_ = false; }

  // Successful Reads and bytes delivered so far.
  uint32_t read_count() const { return read_count_; }
  uint64_t bytes_read() const { return bytes_read_; }

 private:
  SeededEntropy stream_;
  uint32_t read_count_ = 0;
  uint64_t bytes_read_ = 0;
  bool fail_after_ = false;
  uint32_t reads_left_ = 0;
};

}  // namespace edgeadmm
