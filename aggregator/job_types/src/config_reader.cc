#include "edgeadmm/job_types/config_reader.h"

#include <cmath>

namespace edgeadmm::jobs {

bool ConfigReader::HasTable(std::string_view name) const {
  const toml::node* node = root_.get(name);
  return node != nullptr && node->is_table();
}

void ConfigReader::Fail(std::string_view key, const std::string& message) {
  if (failed()) return;
  error_ = host::Error::InvalidArgument(std::string(key) + ": " + message);
}

void ConfigReader::String(std::string_view key, std::string& out,
                          bool required) {
  const toml::node_view<const toml::node> node = Node(key);
  if (!node) {
    if (required) Fail(key, "missing");
    return;
  }
  if (auto v = node.value<std::string>()) {
    out = *v;
  } else {
    Fail(key, "must be a string");
  }
}

void ConfigReader::Double(std::string_view key, double& out, bool required,
                          bool allow_infinity) {
  const toml::node_view<const toml::node> node = Node(key);
  if (!node) {
    if (required) Fail(key, "missing");
    return;
  }
  // value<double> also accepts integers ("rounds = 1" style numbers).
  if (!node.is_number()) return Fail(key, "must be a number");
  out = *node.value<double>();
  if (std::isnan(out) || (std::isinf(out) && !(allow_infinity && out > 0))) {
    Fail(key, allow_infinity ? "must be a number or inf" : "must be finite");
  }
}

void ConfigReader::Bool(std::string_view key, bool& out, bool required) {
  const toml::node_view<const toml::node> node = Node(key);
  if (!node) {
    if (required) Fail(key, "missing");
    return;
  }
  if (auto v = node.value_exact<bool>()) {
    out = *v;
  } else {
    Fail(key, "must be true or false");
  }
}

void ConfigReader::Int(std::string_view key, int64_t& out, bool required) {
  const toml::node_view<const toml::node> node = Node(key);
  if (!node) {
    if (required) Fail(key, "missing");
    return;
  }
  if (!node.is_integer()) return Fail(key, "must be an integer");
  out = *node.value<int64_t>();
}

void ConfigReader::Edges(std::string_view key,
                         std::vector<std::pair<int64_t, int64_t>>& out) {
  const toml::node_view<const toml::node> node = Node(key);
  if (!node) return;
  const toml::array* edges = node.as_array();
  if (edges == nullptr) return Fail(key, "must be an array of [i, j] pairs");
  for (const toml::node& e : *edges) {
    const toml::array* pair = e.as_array();
    if (pair == nullptr || pair->size() != 2 || !(*pair)[0].is_integer() ||
        !(*pair)[1].is_integer()) {
      return Fail(key, "must be an array of [i, j] integer pairs");
    }
    out.emplace_back(*(*pair)[0].value<int64_t>(),
                     *(*pair)[1].value<int64_t>());
  }
}

void ConfigReader::IntList(std::string_view key, std::vector<int64_t>& out,
                           bool required) {
  const toml::node_view<const toml::node> node = Node(key);
  if (!node) {
    if (required) Fail(key, "missing");
    return;
  }
  const toml::array* list = node.as_array();
  if (list == nullptr) return Fail(key, "must be an array of integers");
  out.clear();
  for (const toml::node& e : *list) {
    if (!e.is_integer()) return Fail(key, "must be an array of integers");
    out.push_back(*e.value<int64_t>());
  }
}

toml::node_view<const toml::node> ConfigReader::Node(std::string_view key) {
  asked_.emplace_back(key);
  return root_.at_path(key);
}

}  // namespace edgeadmm::jobs
