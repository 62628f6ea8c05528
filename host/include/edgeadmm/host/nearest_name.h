// The nearest known name to a misspelled one, for messages such as
// "unknown key step.rhoo; did you mean step.rho?" (the job TOML, the
// daemon config).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace edgeadmm::host {

// Levenshtein distance: the fewest single-character insertions, deletions
// and substitutions that turn `a` into `b`.
size_t EditDistance(std::string_view a, std::string_view b);

// The candidate with the smallest edit distance to `name` (the first of
// equals), if that distance is at most max(2, name.size() / 3); else "".
std::string NearestName(std::string_view name,
                        const std::vector<std::string>& candidates);

// "; did you mean X?" for NearestName's X, or "" when there is none.
std::string DidYouMean(std::string_view name,
                       const std::vector<std::string>& candidates);

}  // namespace edgeadmm::host
