// Error and ErrorOr<T>: the error values of the privacy library.
//
// The accountant is host code whose errors reach operators (the CLI, the
// daemon's logs), so an error carries a canonical edgeadmm::StatusCode plus a
// human-readable message that names the offending input.
#pragma once

#include <string>
#include <utility>
#include <variant>

#include "edgeadmm/status.h"

namespace edgeadmm::privacy {

class [[nodiscard]] Error {
 public:
  // OK.
  Error() = default;
  Error(StatusCode code, std::string message)
      : code_(code), message_(std::move(message)) {}

  static Error Ok() { return Error(); }
  static Error InvalidArgument(std::string message) {
    return Error(StatusCode::kInvalidArgument, std::move(message));
  }
  static Error OutOfRange(std::string message) {
    return Error(StatusCode::kOutOfRange, std::move(message));
  }
  static Error FailedPrecondition(std::string message) {
    return Error(StatusCode::kFailedPrecondition, std::move(message));
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

  bool ok() const { return data_.index() == 0; }
  const T& value() const& { return std::get<0>(data_); }
  T& value() & { return std::get<0>(data_); }
  T&& value() && { return std::get<0>(std::move(data_)); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }
  const T& operator*() const { return value(); }
  // The error, or OK when a value is held.
  Error error() const { return ok() ? Error::Ok() : std::get<1>(data_); }

 private:
  std::variant<T, Error> data_;
};

namespace internal {
inline Error ToError(const Error& e) { return e; }
template <typename T>
Error ToError(const ErrorOr<T>& r) {
  return r.error();
}
}  // namespace internal

}  // namespace edgeadmm::privacy

#define EDGEADMM_PRIVACY_CONCAT2(a, b) a##b
#define EDGEADMM_PRIVACY_CONCAT(a, b) EDGEADMM_PRIVACY_CONCAT2(a, b)

// Returns the error of `expr` (an Error or ErrorOr) from the enclosing
// function if it is not OK.
#define EDGEADMM_PRIVACY_TRY(expr)                                     \
  do {                                                                 \
    ::edgeadmm::privacy::Error edgeadmm_privacy_error_ =               \
        ::edgeadmm::privacy::internal::ToError(expr);                  \
    if (!edgeadmm_privacy_error_.ok()) return edgeadmm_privacy_error_; \
  } while (0)

// Evaluates `expr` (an ErrorOr<T>); returns its error or assigns the value.
#define EDGEADMM_PRIVACY_TRY_ASSIGN(lhs, expr) \
  EDGEADMM_PRIVACY_TRY_ASSIGN_IMPL(            \
      EDGEADMM_PRIVACY_CONCAT(edgeadmm_privacy_result_, __LINE__), lhs, expr)
#define EDGEADMM_PRIVACY_TRY_ASSIGN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                     \
  if (!tmp.ok()) return tmp.error();                     \
  lhs = std::move(tmp).value()
