#include "edgeadmm/algorithms/tree_aggregation.h"

#include <algorithm>
#include <cmath>

#include "edgeadmm/algorithms/sum_grid.h"

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
  // The round's sum on the grid g = σ·2^-bits, in grid steps: the raw
  // prefix and the node noises are integers (exact in doubles below 2^53).
  std::vector<double> steps = sum;
  EDGEADMM_TRY(RoundSumToGrid(sigma, steps));
  double* raw = state.data();
  for (size_t i = 0; i < p; ++i) raw[i] += steps[i];
  std::vector<double> node(p);
  for (int l = 0; l < levels && t % (int64_t{1} << l) == 0; ++l) {
    // The level-l node that completes at round t: a fresh noise, drawn in
    // grid steps (std 2^bits on the grid of step 1: N_Z(0, 4^bits)).
    std::fill(node.begin(), node.end(), 0.0);
    EDGEADMM_TRY(noise.AddNoise(std::ldexp(1.0, kSumGridBits), node));
    std::copy(node.begin(), node.end(),
              state.begin() + static_cast<std::ptrdiff_t>(p * (1 + l)));
  }
  std::vector<double> total(raw, raw + p);
  for (int l = 0; l < levels; ++l) {
    // Rounds 1..t are the nodes of t's set bits, each the newest of its
    // level: the one ending at ⌊t / 2^l⌋·2^l.
    if (((t >> l) & 1) == 0) continue;
    const double* level = state.data() + p * (1 + static_cast<size_t>(l));
    for (size_t i = 0; i < p; ++i) total[i] += level[i];
  }
  // Back to the units of the sum from the integer total alone.
  noisy_prefix.resize(p);
  const int bits = static_cast<int>(kSumGridBits);
  for (size_t i = 0; i < p; ++i) {
    noisy_prefix[i] = sigma * std::ldexp(total[i], -bits);
  }
  state.back() = static_cast<double>(t);
  return Status::Ok();
}

}  // namespace edgeadmm::algorithms
