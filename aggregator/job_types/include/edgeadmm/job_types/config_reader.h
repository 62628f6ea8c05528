// ConfigReader: typed keys of one TOML job document ("table.key" paths),
// the first error kept. The job parser reads the common tables with it and
// hands it to the job's algorithm, which reads its own table
// (algorithms::Algorithm::ReadTable); the keys asked are the known ones
// RefuseUnknownKeys checks the document against.
#pragma once

#include <toml++/toml.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "edgeadmm/host/error.h"

namespace edgeadmm::jobs {

// The TOML names of an enum's values.
template <typename E>
using NameTable = std::initializer_list<std::pair<const char*, E>>;

// `value`'s name in `table`, "?" if it has none.
template <typename E>
const char* NameOf(NameTable<E> table, E value) {
  for (const auto& [name, v] : table) {
    if (v == value) return name;
  }
  return "?";
}

class ConfigReader {
 public:
  explicit ConfigReader(const toml::table& root) : root_(root) {}

  bool failed() const { return !error_.ok(); }
  // Whether the document has `key` (a key asked for: it is known).
  bool Has(std::string_view key) { return static_cast<bool>(Node(key)); }
  // Whether the document has the table `name` (not a key: asks nothing).
  bool HasTable(std::string_view name) const;
  // Every key asked for so far (RefuseUnknownKeys' known names).
  const std::vector<std::string>& asked() const { return asked_; }
  // The first failure (INVALID_ARGUMENT), or OK.
  const host::Error& error() const { return error_; }

  // Fails with "key: message" unless something failed already.
  void Fail(std::string_view key, const std::string& message);

  // Each reads `key` into `out` when present (`out` keeps its default when
  // absent), and fails "key: missing" when absent and `required`.
  void String(std::string_view key, std::string& out, bool required);
  // A finite number, or also +inf when `allow_infinity`.
  void Double(std::string_view key, double& out, bool required,
              bool allow_infinity = false);
  void Bool(std::string_view key, bool& out, bool required);
  void Int(std::string_view key, int64_t& out, bool required);
  // An array of [i, j] integer pairs (optional).
  void Edges(std::string_view key,
             std::vector<std::pair<int64_t, int64_t>>& out);
  // An array of integers.
  void IntList(std::string_view key, std::vector<int64_t>& out, bool required);

  // One of the names of `table`; an unknown name fails with the choices.
  template <typename E>
  void Enum(std::string_view key, NameTable<E> table, E& out, bool required) {
    std::string text;
    const bool was_failed = failed();
    String(key, text, required);
    if (failed() != was_failed || text.empty()) return;
    for (const auto& [name, v] : table) {
      if (text == name) {
        out = v;
        return;
      }
    }
    std::string choices;
    for (const auto& [name, v] : table) {
      choices += choices.empty() ? "" : ", ";
      choices += name;
    }
    Fail(key, "unknown value \"" + text + "\" (one of: " + choices + ")");
  }

 private:
  toml::node_view<const toml::node> Node(std::string_view key);

  const toml::table& root_;
  host::Error error_;
  std::vector<std::string> asked_;
};

}  // namespace edgeadmm::jobs
