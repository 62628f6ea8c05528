#include "edgeadmm/host/nearest_name.h"

#include <algorithm>

namespace edgeadmm::host {

size_t EditDistance(std::string_view a, std::string_view b) {
  // One row of the dynamic programme: row[j] is the distance between the
  // prefix of `a` read so far and b[0, j).
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      const size_t replace = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({above + 1, row[j - 1] + 1, replace});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string NearestName(std::string_view name,
                        const std::vector<std::string>& candidates) {
  const size_t limit = std::max<size_t>(2, name.size() / 3);
  const std::string* best = nullptr;
  size_t best_distance = limit + 1;
  for (const std::string& candidate : candidates) {
    const size_t d = EditDistance(name, candidate);
    if (d < best_distance) {
      best = &candidate;
      best_distance = d;
    }
  }
  return best != nullptr ? *best : std::string();
}

std::string DidYouMean(std::string_view name,
                       const std::vector<std::string>& candidates) {
  const std::string nearest = NearestName(name, candidates);
  return nearest.empty() ? std::string() : "; did you mean " + nearest + "?";
}

}  // namespace edgeadmm::host
