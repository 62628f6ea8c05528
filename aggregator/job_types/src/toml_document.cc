#include "edgeadmm/job_types/toml_document.h"

#include <algorithm>
#include <sstream>

#include "edgeadmm/host/nearest_name.h"

namespace edgeadmm::jobs {

host::ErrorOr<toml::table> ParseTomlDocument(std::string_view text) {
  try {
    return toml::parse(text);
  } catch (const toml::parse_error& e) {
    std::ostringstream message;
    message << "TOML syntax error at line " << e.source().begin.line << ": "
            << e.description();
    return host::Error::InvalidArgument(message.str());
  }
}

namespace {

// The tables of `known` ("a" of "a.b"), each once, in order.
std::vector<std::string> KnownTables(const std::vector<std::string>& known) {
  std::vector<std::string> tables;
  for (const std::string& path : known) {
    std::string table = "[" + path.substr(0, path.find('.')) + "]";
    if (std::find(tables.begin(), tables.end(), table) == tables.end()) {
      tables.push_back(std::move(table));
    }
  }
  return tables;
}

// A key written outside any table: the known path with that key, if any.
std::string TableFor(std::string_view key,
                     const std::vector<std::string>& known) {
  for (const std::string& path : known) {
    const size_t dot = path.find('.');
    if (dot != std::string::npos && path.substr(dot + 1) == key) return path;
  }
  return host::NearestName(key, known);
}

}  // namespace

host::Error RefuseUnknownKeys(const toml::table& root,
                              const std::vector<std::string>& known) {
  const std::vector<std::string> tables = KnownTables(known);
  for (const auto& [name, node] : root) {
    const std::string table_name(name.str());
    if (!node.is_table()) {
      const std::string hint = TableFor(table_name, known);
      return host::Error::InvalidArgument(
          "unknown key " + table_name + " outside the tables" +
          (hint.empty() ? "" : "; did you mean " + hint + "?"));
    }
    const std::string bracketed = "[" + table_name + "]";
    if (std::find(tables.begin(), tables.end(), bracketed) == tables.end()) {
      return host::Error::InvalidArgument("unknown table " + bracketed +
                                          host::DidYouMean(bracketed, tables));
    }
    for (const auto& [key, value] : *node.as_table()) {
      const std::string path = table_name + "." + std::string(key.str());
      if (std::find(known.begin(), known.end(), path) == known.end()) {
        return host::Error::InvalidArgument("unknown key " + path +
                                            host::DidYouMean(path, known));
      }
    }
  }
  return host::Error::Ok();
}

}  // namespace edgeadmm::jobs
