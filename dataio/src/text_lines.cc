#include "text_lines.h"

namespace edgeadmm {
namespace internal {

bool TextLines::Next(std::string_view* line) {
  if (rest_.empty()) return false;
  const size_t end = rest_.find('\n');
  std::string_view current = rest_.substr(0, end);
  rest_ = end == std::string_view::npos ? std::string_view()
                                        : rest_.substr(end + 1);
  if (!current.empty() && current.back() == '\r') current.remove_suffix(1);
  ++number_;
  *line = current;
  return true;
}

bool Tokens::Next(std::string_view* token) {
  const size_t begin = rest_.find_first_not_of(separators_);
  if (begin == std::string_view::npos) {
    rest_ = std::string_view();
    return false;
  }
  rest_.remove_prefix(begin);
  const size_t end = rest_.find_first_of(separators_);
  *token = rest_.substr(0, end);
  rest_ =
      end == std::string_view::npos ? std::string_view() : rest_.substr(end);
  return true;
}

std::string_view Trim(std::string_view text) {
  const size_t begin = text.find_first_not_of(" \t");
  if (begin == std::string_view::npos) return std::string_view();
  const size_t end = text.find_last_not_of(" \t");
  return text.substr(begin, end - begin + 1);
}

host::Error LineError(const std::string& name, size_t line,
                      const std::string& message) {
  return host::Error::InvalidArgument(name + ":" + std::to_string(line) + ": " +
                                      message);
}

}  // namespace internal
}  // namespace edgeadmm
