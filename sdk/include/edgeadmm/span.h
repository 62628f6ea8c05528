// Span<T>: a non-owning view of contiguous memory (C++17 has no std::span).
#pragma once

#include <cstddef>

#include "edgeadmm/assert.h"

namespace edgeadmm {

// One out-of-line, argument-free failure path shared by every Span<T>: with
// it the bounds check is a compare and a branch, small enough for the
// compiler to inline operator[] instead of emitting a copy of each accessor
// (and of its panic call) per element type.
[[noreturn, gnu::noinline, gnu::cold]] inline void SpanOutOfRange() {
  EDGEADMM_PANIC("Span access out of range");
}

template <typename T>
class Span {
 public:
  constexpr Span() = default;
  constexpr Span(T* data, size_t size) : data_(data), size_(size) {}
  template <size_t N>
  constexpr Span(T (&array)[N]) : data_(array), size_(N) {}  // NOLINT
  // Span<T> converts to Span<const T>.
  template <typename U>
  constexpr Span(const Span<U>& other)  // NOLINT
      : data_(other.data()), size_(other.size()) {}

  constexpr T* data() const { return data_; }
  constexpr size_t size() const { return size_; }
  constexpr size_t size_bytes() const { return size_ * sizeof(T); }
  constexpr bool empty() const { return size_ == 0; }
  constexpr T* begin() const { return data_; }
  constexpr T* end() const { return data_ + size_; }

  [[gnu::always_inline]] T& operator[](size_t i) const {
#if EDGEADMM_CFG_ASSERT_ENABLED
    if (i >= size_) SpanOutOfRange();
#endif
    return data_[i];
  }
  [[gnu::always_inline]] Span subspan(size_t offset, size_t count) const {
#if EDGEADMM_CFG_ASSERT_ENABLED
    if (offset > size_ || count > size_ - offset) SpanOutOfRange();
#endif
    return Span(data_ + offset, count);
  }
  [[gnu::always_inline]] Span first(size_t count) const {
    return subspan(0, count);
  }

 private:
  T* data_ = nullptr;
  size_t size_ = 0;
};

using ByteSpan = Span<std::byte>;
using ConstByteSpan = Span<const std::byte>;

}  // namespace edgeadmm
