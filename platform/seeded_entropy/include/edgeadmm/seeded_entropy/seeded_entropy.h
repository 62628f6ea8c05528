// SeededEntropy: a deterministic EntropySource, for an emulated board that
// has no TRNG (platform/boards/mps2_an386 under QEMU) and for tests
// (TestEntropy, testing/). UNSAFE on real hardware: its bytes are a public
// function of a 64-bit seed, so anything seeded from it (the DRBG, hence
// every DTLS random and all privacy noise) is predictable. A product's board
// reads its hardware TRNG instead.
//
// Byte stream: SHA-256(seed as 8 LE bytes ‖ block counter as 8 LE bytes) for
// counter = 0, 1, 2, ..., concatenated; consecutive Reads continue the stream.
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/entropy_source.h"

namespace edgeadmm {

class SeededEntropy final : public EntropySource {
 public:
  explicit SeededEntropy(uint64_t seed) : seed_(seed) {}

  // Fills `out` with the next bytes of the stream. UNAVAILABLE only if
  // SHA-256 fails (it does not for these inputs; no panic hook is needed).
  Status Read(ByteSpan out) override;

 private:
  // The next 32 bytes of the stream; false if SHA-256 fails.
  bool RefillBlock();

  uint64_t seed_;
  uint64_t counter_ = 0;
  uint8_t block_[32] = {};
  size_t block_used_ = sizeof(block_);
};

}  // namespace edgeadmm
