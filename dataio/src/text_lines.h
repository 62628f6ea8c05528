// Private to the data loaders: line and token iteration over text, and the
// "<name>:<line>: message" error convention.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "edgeadmm/host/error.h"

namespace edgeadmm {
namespace internal {

// Yields the lines of `text` (without '\n' or a trailing '\r').
class TextLines {
 public:
  explicit TextLines(std::string_view text) : rest_(text) {}
  bool Next(std::string_view* line);
  // 1-based number of the line last returned.
  size_t number() const { return number_; }

 private:
  std::string_view rest_;
  size_t number_ = 0;
};

// Yields the non-empty tokens of `text` separated by any of `separators`.
class Tokens {
 public:
  Tokens(std::string_view text, std::string_view separators)
      : rest_(text), separators_(separators) {}
  bool Next(std::string_view* token);

 private:
  std::string_view rest_;
  std::string_view separators_;
};

// `text` without leading and trailing spaces and tabs.
std::string_view Trim(std::string_view text);

// INVALID_ARGUMENT with "<name>:<line>: <message>".
host::Error LineError(const std::string& name, size_t line,
                      const std::string& message);

}  // namespace internal
}  // namespace edgeadmm
