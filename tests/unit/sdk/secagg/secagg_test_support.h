// Test helpers for the secagg tests: random sources with a known output.
// Portable, no heap.
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/random_byte_source.h"
#include "edgeadmm/span.h"

namespace edgeadmm {

// Every byte it serves is `value` (e.g. all coefficients of a Shamir
// polynomial set to one value, to enumerate the randomness exhaustively).
class ConstantBytes final : public RandomByteSource {
 public:
  explicit ConstantBytes(uint8_t value) : value_(value) {}
  Status Generate(ByteSpan out) override {
    for (std::byte& b : out) {
      b = static_cast<std::byte>(value_);
    }
    return Status::Ok();
  }

 private:
  uint8_t value_;
};

// Call k of Generate fills its request with values[k] (the last value
// again after the list ends): one value per Shamir coefficient row.
class RowBytes final : public RandomByteSource {
 public:
  explicit RowBytes(Span<const uint8_t> values) : values_(values) {}
  Status Generate(ByteSpan out) override {
    const size_t row = call_ < values_.size() ? call_ : values_.size() - 1;
    ++call_;
    for (std::byte& b : out) {
      b = static_cast<std::byte>(values_[row]);
    }
    return Status::Ok();
  }

 private:
  Span<const uint8_t> values_;
  size_t call_ = 0;
};

// Always fails.
class FailingBytes final : public RandomByteSource {
 public:
  Status Generate(ByteSpan) override { return Status::Unavailable(); }
};

}  // namespace edgeadmm
