// host::Error and host::ErrorOr<T>: the error values of host code.
//
// Host code (aggregator, dataio, tools) reports failures that operators read
// (the CLI, the daemon's logs), so an error carries a canonical
// edgeadmm::StatusCode plus a human-readable message that names the offending
// input. The SDK's code-only Status and Result<T> convert implicitly, so
// EDGEADMM_HOST_TRY works on store and registry calls too.
#pragma once

#include <string>
#include <utility>
#include <variant>

#include "edgeadmm/result.h"
#include "edgeadmm/status.h"

namespace edgeadmm::host {

class [[nodiscard]] Error {
 public:
  // OK.
  Error() = default;
  Error(StatusCode code, std::string message)
      : code_(code), message_(std::move(message)) {}
  // A code-only Status: its code, and its name as the message.
  Error(Status status)  // NOLINT
      : code_(status.code()), message_(status.ok() ? "" : status.str()) {}
  // A code-only Status with what failed as the message (OK stays OK), e.g.
  // EDGEADMM_HOST_TRY(host::Error(storage.Open(dir), "cannot open " + dir)).
  Error(Status status, std::string context)
      : code_(status.code()),
        message_(status.ok() ? std::string() : std::move(context)) {}

  static Error Ok() { return Error(); }
  static Error InvalidArgument(std::string message) {
    return Error(StatusCode::kInvalidArgument, std::move(message));
  }
  static Error NotFound(std::string message) {
    return Error(StatusCode::kNotFound, std::move(message));
  }
  static Error OutOfRange(std::string message) {
    return Error(StatusCode::kOutOfRange, std::move(message));
  }
  static Error FailedPrecondition(std::string message) {
    return Error(StatusCode::kFailedPrecondition, std::move(message));
  }
  static Error Unavailable(std::string message) {
    return Error(StatusCode::kUnavailable, std::move(message));
  }
  static Error DataLoss(std::string message) {
    return Error(StatusCode::kDataLoss, std::move(message));
  }
  static Error Internal(std::string message) {
    return Error(StatusCode::kInternal, std::move(message));
  }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // The bare status, for callers that speak edgeadmm::Status.
  Status status() const { return Status(code_); }
  // "INVALID_ARGUMENT: q must be in (0, 1], got 1.5".
  std::string ToString() const {
    return std::string(StatusCodeName(code_)) + ": " + message_;
  }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

// A value or a non-OK Error.
template <typename T>
class [[nodiscard]] ErrorOr {
 public:
  ErrorOr(const T& value) : data_(value) {}          // NOLINT
  ErrorOr(T&& value) : data_(std::move(value)) {}    // NOLINT
  ErrorOr(Error error) : data_(std::move(error)) {}  // NOLINT
  ErrorOr(Status status) : data_(Error(status)) {}   // NOLINT
  ErrorOr(Result<T> result)                          // NOLINT
      : data_(result.ok() ? std::variant<T, Error>(std::move(result).value())
                          : std::variant<T, Error>(Error(result.status()))) {}

  bool ok() const { return data_.index() == 0; }
  const T& value() const& { return std::get<0>(data_); }
  T& value() & { return std::get<0>(data_); }
  T&& value() && { return std::get<0>(std::move(data_)); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  // The error, or OK when a value is held.
  Error error() const { return ok() ? Error::Ok() : std::get<1>(data_); }
  Status status() const { return error().status(); }

 private:
  std::variant<T, Error> data_;
};

namespace internal {
inline Error ToError(Error e) { return e; }
template <typename T>
Error ToError(const ErrorOr<T>& r) {
  return r.error();
}
inline Error ToError(Status s) { return Error(s); }
template <typename T>
Error ToError(const Result<T>& r) {
  return Error(r.status());
}
}  // namespace internal

}  // namespace edgeadmm::host

#define EDGEADMM_HOST_CONCAT2(a, b) a##b
#define EDGEADMM_HOST_CONCAT(a, b) EDGEADMM_HOST_CONCAT2(a, b)

// Returns the error of `expr` (an Error, ErrorOr, Status or Result) from the
// enclosing function if it is not OK.
#define EDGEADMM_HOST_TRY(expr)                                  \
  do {                                                           \
    ::edgeadmm::host::Error edgeadmm_host_error_ =               \
        ::edgeadmm::host::internal::ToError(expr);               \
    if (!edgeadmm_host_error_.ok()) return edgeadmm_host_error_; \
  } while (0)

// Evaluates `expr` (an ErrorOr<T> or Result<T>); returns its error or
// assigns the value to `lhs` (which may be a declaration: `auto x`).
#define EDGEADMM_HOST_TRY_ASSIGN(lhs, expr) \
  EDGEADMM_HOST_TRY_ASSIGN_IMPL(            \
      EDGEADMM_HOST_CONCAT(edgeadmm_host_result_, __LINE__), lhs, expr)
#define EDGEADMM_HOST_TRY_ASSIGN_IMPL(tmp, lhs, expr)             \
  auto tmp = (expr);                                              \
  if (!tmp.ok()) return ::edgeadmm::host::internal::ToError(tmp); \
  lhs = std::move(tmp).value()
