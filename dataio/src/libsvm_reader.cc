#include "edgeadmm/dataio/libsvm_reader.h"

#include <charconv>
#include <cmath>

#include "edgeadmm/dataio/compressed_file.h"
#include "text_lines.h"

namespace edgeadmm {
namespace {

bool ParseLabel(std::string_view token, LibsvmLabels kind, Real* label) {
  if (!token.empty() && token.front() == '+') token.remove_prefix(1);
  double value = 0;
  const auto [end, ec] =
      std::from_chars(token.data(), token.data() + token.size(), value);
  if (ec != std::errc() || end != token.data() + token.size() ||
      !std::isfinite(value)) {
    return false;
  }
  if (kind == LibsvmLabels::kBinary && value != 1.0 && value != -1.0) {
    return false;
  }
  *label = value;
  return true;
}

}  // namespace

host::ErrorOr<DenseDataset> ParseLibsvm(std::string_view text, size_t dim,
                                        const std::string& name,
                                        LibsvmLabels labels) {
  if (dim == 0) {
    return internal::LineError(name, 0, "dimension must be positive");
  }
  DenseDataset data;
  data.dim = dim;
  internal::TextLines lines(text);
  std::string_view line;
  while (lines.Next(&line)) {
    internal::Tokens tokens(line, " \t");
    std::string_view token;
    if (!tokens.Next(&token)) continue;  // blank line
    const size_t number = lines.number();
    Real label = 0;
    if (!ParseLabel(token, labels, &label)) {
      return internal::LineError(
          name, number,
          "label '" + std::string(token) +
              (labels == LibsvmLabels::kBinary
                   ? "' is not +1 or -1 (real labels need a squared-loss job)"
                   : "' is not a finite number"));
    }
    data.labels.push_back(label);
    data.features.resize(data.features.size() + dim, Real{0});
    Real* row = data.features.data() + data.samples * dim;
    size_t previous = 0;
    while (tokens.Next(&token)) {
      const size_t colon = token.find(':');
      size_t index = 0;
      double value = 0;
      const char* const begin = token.data();
      const char* const end = token.data() + token.size();
      const auto index_parse = std::from_chars(
          begin, colon == std::string_view::npos ? end : begin + colon, index);
      const auto value_parse =
          colon == std::string_view::npos
              ? index_parse
              : std::from_chars(begin + colon + 1, end, value);
      if (colon == std::string_view::npos || index_parse.ec != std::errc() ||
          index_parse.ptr != begin + colon || value_parse.ec != std::errc() ||
          value_parse.ptr != end || !std::isfinite(value)) {
        return internal::LineError(name, number,
                                   "malformed pair '" + std::string(token) +
                                       "' (expected index:value)");
      }
      if (index < 1 || index > dim) {
        return internal::LineError(name, number,
                                   "index " + std::to_string(index) +
                                       " outside 1.." + std::to_string(dim));
      }
      if (index <= previous) {
        return internal::LineError(
            name, number, "index " + std::to_string(index) + " not increasing");
      }
      previous = index;
      row[index - 1] = value;
    }
    ++data.samples;
  }
  return data;
}

host::ErrorOr<DenseDataset> ReadLibsvmFile(const std::string& path, size_t dim,
                                           LibsvmLabels labels) {
  EDGEADMM_HOST_TRY_ASSIGN(const std::string text, ReadFileMaybeXz(path));
  return ParseLibsvm(text, dim, path, labels);
}

}  // namespace edgeadmm
