#include "edgeadmm/algorithms/tree_aggregation.h"

#include <algorithm>
#include <cmath>

namespace edgeadmm::algorithms {

int TreeLevels(int64_t rounds) {
  int levels = 1;
  while ((int64_t{1} << levels) <= rounds) ++levels;
  return levels;
}

double TreeSquaredCountBound(int64_t participations, int levels) {
  const double j = static_cast<double>(participations);
  double bound = 0;
  for (int l = 0; l < levels; ++l) {
    bound += j * std::min(j, std::ldexp(1.0, l));
  }
  return bound;
}

size_t TreeStateLength(size_t p, int levels) {
  return p * (1 + static_cast<size_t>(levels)) + 1;
}

Status TreeAddRound(const std::vector<double>& sum, double sigma, int levels,
                    RoundNoise& noise, std::vector<double>& state,
                    std::vector<double>& noisy_prefix) {
  const size_t p = sum.size();
  const size_t length = TreeStateLength(p, levels);
  if (state.size() == p && std::all_of(state.begin(), state.end(),
                                       [](double v) { return v == 0; })) {
    state.assign(length, 0.0);  // a new job: t = 0
  }
  if (state.size() != length || !(state.back() >= 0)) {
    return Status::InvalidArgument();
  }
  const int64_t t = static_cast<int64_t>(state.back()) + 1;
  // Beyond 2^levels − 1 rounds the top level would be missing.
  if (t >= (int64_t{1} << levels)) return Status::OutOfRange();
  double* raw = state.data();
  for (size_t i = 0; i < p; ++i) raw[i] += sum[i];
  std::vector<double> node(p);
  for (int l = 0; l < levels && t % (int64_t{1} << l) == 0; ++l) {
    // The level-l node that completes at round t: a fresh noise.
    std::fill(node.begin(), node.end(), 0.0);
    EDGEADMM_TRY(noise.AddNoise(sigma, node));
    std::copy(node.begin(), node.end(),
              state.begin() + static_cast<std::ptrdiff_t>(p * (1 + l)));
  }
  noisy_prefix.assign(raw, raw + p);
  for (int l = 0; l < levels; ++l) {
    // Rounds 1..t are the nodes of t's set bits, each the newest of its
    // level: the one ending at ⌊t / 2^l⌋·2^l.
    if (((t >> l) & 1) == 0) continue;
    const double* level = state.data() + p * (1 + static_cast<size_t>(l));
    for (size_t i = 0; i < p; ++i) noisy_prefix[i] += level[i];
  }
  state.back() = static_cast<double>(t);
  return Status::Ok();
}

}  // namespace edgeadmm::algorithms
