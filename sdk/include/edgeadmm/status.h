// Status: the error value every fallible SDK function returns.
//
// Canonical codes follow the gRPC/Abseil set. The SDK never throws; callers
// check `ok()` or propagate with EDGEADMM_TRY (see result.h).
#pragma once

#include <cstddef>
#include <cstdint>

namespace edgeadmm {

enum class StatusCode : uint8_t {
  kOk = 0,
  kCancelled = 1,
  kUnknown = 2,
  kInvalidArgument = 3,
  kDeadlineExceeded = 4,
  kNotFound = 5,
  kAlreadyExists = 6,
  kPermissionDenied = 7,
  kResourceExhausted = 8,
  kFailedPrecondition = 9,
  kAborted = 10,
  kOutOfRange = 11,
  kUnimplemented = 12,
  kInternal = 13,
  kUnavailable = 14,
  kDataLoss = 15,
  kUnauthenticated = 16,
};

// The upper-case name of a code, e.g. "INVALID_ARGUMENT".
const char* StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  constexpr Status() = default;
  constexpr explicit Status(StatusCode code) : code_(code) {}

  static constexpr Status Ok() { return Status(); }
  static constexpr Status Cancelled() { return Status(StatusCode::kCancelled); }
  static constexpr Status Unknown() { return Status(StatusCode::kUnknown); }
  static constexpr Status InvalidArgument() {
    return Status(StatusCode::kInvalidArgument);
  }
  static constexpr Status DeadlineExceeded() {
    return Status(StatusCode::kDeadlineExceeded);
  }
  static constexpr Status NotFound() { return Status(StatusCode::kNotFound); }
  static constexpr Status AlreadyExists() {
    return Status(StatusCode::kAlreadyExists);
  }
  static constexpr Status PermissionDenied() {
    return Status(StatusCode::kPermissionDenied);
  }
  static constexpr Status ResourceExhausted() {
    return Status(StatusCode::kResourceExhausted);
  }
  static constexpr Status FailedPrecondition() {
    return Status(StatusCode::kFailedPrecondition);
  }
  static constexpr Status Aborted() { return Status(StatusCode::kAborted); }
  static constexpr Status OutOfRange() { return Status(StatusCode::kOutOfRange); }
  static constexpr Status Unimplemented() {
    return Status(StatusCode::kUnimplemented);
  }
  static constexpr Status Internal() { return Status(StatusCode::kInternal); }
  static constexpr Status Unavailable() {
    return Status(StatusCode::kUnavailable);
  }
  static constexpr Status DataLoss() { return Status(StatusCode::kDataLoss); }
  static constexpr Status Unauthenticated() {
    return Status(StatusCode::kUnauthenticated);
  }

  constexpr bool ok() const { return code_ == StatusCode::kOk; }
  constexpr StatusCode code() const { return code_; }
  const char* str() const { return StatusCodeName(code_); }

  // Explicitly discards a status the caller has decided not to handle.
  constexpr void IgnoreError() const {}

  friend constexpr bool operator==(Status a, Status b) {
    return a.code_ == b.code_;
  }
  friend constexpr bool operator!=(Status a, Status b) {
    return a.code_ != b.code_;
  }

 private:
  StatusCode code_ = StatusCode::kOk;
};

// A status plus a byte or element count, e.g. bytes written before an error.
class [[nodiscard]] StatusWithSize {
 public:
  constexpr StatusWithSize() = default;
  constexpr explicit StatusWithSize(size_t size) : size_(size) {}
  constexpr StatusWithSize(Status status, size_t size)
      : status_(status), size_(size) {}

  constexpr bool ok() const { return status_.ok(); }
  constexpr Status status() const { return status_; }
  constexpr size_t size() const { return size_; }

 private:
  Status status_;
  size_t size_ = 0;
};

namespace internal {
constexpr Status ToStatus(Status s) { return s; }
constexpr Status ToStatus(StatusWithSize s) { return s.status(); }
}  // namespace internal

}  // namespace edgeadmm
