// Test helper: a RandomByteSource that serves a scripted list of 64-bit
// words, each as the 8 little-endian bytes GaussianSampler reads back as
// that word, then `filler` forever. Lets a test reach uniforms far too rare
// to draw from a seed. Portable, no heap (the words are the caller's).
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/random_byte_source.h"
#include "edgeadmm/span.h"

namespace edgeadmm {

class ScriptedBytes final : public RandomByteSource {
 public:
  // 0x9e37...: clz 0, so each filler word is one uniform in [1/2, 1).
  explicit ScriptedBytes(Span<const uint64_t> words,
                         uint64_t filler = 0x9e3779b97f4a7c15u)
      : words_(words), filler_(filler) {}

  Status Generate(ByteSpan out) override {
    for (std::byte& b : out) {
      const size_t word = position_ / 8;
      const uint64_t value = word < words_.size() ? words_[word] : filler_;
      b = static_cast<std::byte>(value >> (8 * (position_ % 8)));
      ++position_;
    }
    return Status::Ok();
  }

 private:
  Span<const uint64_t> words_;
  uint64_t filler_;
  size_t position_ = 0;
};

}  // namespace edgeadmm
