// Workspace: carves typed, aligned slices out of caller-owned memory.
//
// The SDK allocates nothing from the heap: every buffer is a slice of the
// workspace given to Init. Sizes are computed with the constexpr
// Workspace::Bytes<T>(n) so a caller can size a static buffer at compile time.
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/result.h"
#include "edgeadmm/span.h"

namespace edgeadmm {

class Workspace {
 public:
  // Every slice starts on this boundary (enough for double and SIMD loads).
  static constexpr size_t kAlignment = 16;

  // Bytes needed for n objects of type T, including worst-case alignment.
  template <typename T>
  static constexpr size_t Bytes(size_t n) {
    return RoundUp(n * sizeof(T)) + kAlignment;
  }

  // `bytes` rounded up to a multiple of kAlignment.
  static constexpr size_t RoundUp(size_t bytes) {
    return (bytes + kAlignment - 1) / kAlignment * kAlignment;
  }

  Workspace() = default;
  explicit Workspace(ByteSpan memory) : memory_(memory) {}

  // A zero-initialised slice of n objects; RESOURCE_EXHAUSTED if the
  // remaining memory is too small. T must be trivially constructible.
  template <typename T>
  Result<Span<T>> Allocate(size_t n) {
    static_assert(std::is_trivially_default_constructible_v<T>,
                  "workspace slices hold trivial types only");
    static_assert(alignof(T) <= kAlignment, "over-aligned type");
    const uintptr_t base = reinterpret_cast<uintptr_t>(memory_.data());
    const uintptr_t start = (base + used_ + kAlignment - 1) & ~(kAlignment - 1);
    const size_t offset = static_cast<size_t>(start - base);
    if (n > (memory_.size() / sizeof(T)) || offset > memory_.size() ||
        n * sizeof(T) > memory_.size() - offset) {
      return Status::ResourceExhausted();
    }
    // `start` is aligned to kAlignment ≥ alignof(T), so the cast is sound.
    T* data = static_cast<T*>(static_cast<void*>(memory_.data() + offset));
    for (size_t i = 0; i < n; ++i) data[i] = T();
    used_ = offset + n * sizeof(T);
    return Span<T>(data, n);
  }

  size_t used() const { return used_; }
  size_t capacity() const { return memory_.size(); }

 private:
  ByteSpan memory_;
  size_t used_ = 0;
};

}  // namespace edgeadmm
