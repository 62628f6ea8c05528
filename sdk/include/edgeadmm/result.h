// Result<T>: a value or a non-OK Status, without exceptions or heap.
#pragma once

#include <new>
#include <type_traits>
#include <utility>

#include "edgeadmm/assert.h"
#include "edgeadmm/status.h"

namespace edgeadmm {

// One out-of-line, argument-free failure path shared by every Result<T>
// (as Span's): value() on an error is a compare and a branch that the
// compiler inlines, not a panic call with its file, line and message per
// instantiation.
[[noreturn, gnu::noinline, gnu::cold]] inline void ResultHasNoValue() {
  EDGEADMM_PANIC("Result::value() on an error");
}

template <typename T>
class [[nodiscard]] Result {
 public:
  // A value (implicit, so `return value;` works).
  Result(const T& value) : status_(Status::Ok()), has_value_(true) {  // NOLINT
    ::new (static_cast<void*>(&storage_)) T(value);
  }
  Result(T&& value) : status_(Status::Ok()), has_value_(true) {  // NOLINT
    ::new (static_cast<void*>(&storage_)) T(std::move(value));
  }
  // An error; passing an OK status is a programming error.
  Result(Status status) : status_(status), has_value_(false) {  // NOLINT
    EDGEADMM_ASSERT(!status.ok());
  }

  Result(const Result& other) : status_(other.status_), has_value_(false) {
    if (other.has_value_) Emplace(other.value());
  }
  Result(Result&& other) noexcept : status_(other.status_), has_value_(false) {
    if (other.has_value_) Emplace(std::move(other.value()));
  }
  Result& operator=(const Result& other) {
    if (this != &other) {
      Reset();
      status_ = other.status_;
      if (other.has_value_) Emplace(other.value());
    }
    return *this;
  }
  Result& operator=(Result&& other) noexcept {
    if (this != &other) {
      Reset();
      status_ = other.status_;
      if (other.has_value_) Emplace(std::move(other.value()));
    }
    return *this;
  }
  ~Result() { Reset(); }

  bool ok() const { return status_.ok(); }
  Status status() const { return status_; }

  T& value() & {
    CheckHasValue();
    return *Ptr();
  }
  const T& value() const& {
    CheckHasValue();
    return *Ptr();
  }
  T&& value() && {
    CheckHasValue();
    return std::move(*Ptr());
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  [[gnu::always_inline]] void CheckHasValue() const {
#if EDGEADMM_CFG_ASSERT_ENABLED
    if (!has_value_) ResultHasNoValue();
#endif
  }
  template <typename U>
  void Emplace(U&& v) {
    ::new (static_cast<void*>(&storage_)) T(std::forward<U>(v));
    has_value_ = true;
  }
  void Reset() {
    if (has_value_) Ptr()->~T();
    has_value_ = false;
  }
  T* Ptr() { return std::launder(reinterpret_cast<T*>(&storage_)); }
  const T* Ptr() const {
    return std::launder(reinterpret_cast<const T*>(&storage_));
  }

  Status status_;
  bool has_value_;
  std::aligned_storage_t<sizeof(T), alignof(T)> storage_;
};

namespace internal {
template <typename T>
Status ToStatus(const Result<T>& r) {
  return r.status();
}
}  // namespace internal

}  // namespace edgeadmm

#define EDGEADMM_INTERNAL_CONCAT2(a, b) a##b
#define EDGEADMM_INTERNAL_CONCAT(a, b) EDGEADMM_INTERNAL_CONCAT2(a, b)

// Returns from the enclosing function if `expr` (a Status, StatusWithSize or
// Result) is not OK.
#define EDGEADMM_TRY(expr)                                       \
  do {                                                           \
    const ::edgeadmm::Status edgeadmm_try_status_ =              \
        ::edgeadmm::internal::ToStatus(expr);                    \
    if (!edgeadmm_try_status_.ok()) return edgeadmm_try_status_; \
  } while (0)

// Evaluates `expr` (a Result<T>); on error returns its status, otherwise
// assigns the value to `lhs` (which may be a declaration: `auto x`).
#define EDGEADMM_TRY_ASSIGN(lhs, expr) \
  EDGEADMM_INTERNAL_TRY_ASSIGN(        \
      EDGEADMM_INTERNAL_CONCAT(edgeadmm_try_result_, __LINE__), lhs, expr)
#define EDGEADMM_INTERNAL_TRY_ASSIGN(tmp, lhs, expr) \
  auto tmp = (expr);                                 \
  if (!tmp.ok()) return tmp.status();                \
  lhs = std::move(tmp).value()
