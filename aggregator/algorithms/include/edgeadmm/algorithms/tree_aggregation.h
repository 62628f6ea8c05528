// Tree aggregation: the binary-tree mechanism behind DP-FTRL (Kairouz et al.,
// "Practical and Private (Deep) Learning without Sampling or Shuffling",
// ICML 2021, Sec. 3; the tree of Dwork et al. 2010 and Chan et al. 2011).
// A stream of per-round sums s_1, s_2, ... is released as noisy prefix sums:
// every dyadic node (the sum over rounds (e − 2^l, e] at level l, complete
// at round e, a multiple of 2^l) gets its own N(0, σ²I) noise once, and the
// prefix at round t is the sum of the nodes of t's binary digits, so it
// carries popcount(t) node noises. Exact noise on a grid (sum_grid.h): each
// round's sum is rounded once to g = σ·2^-kSumGridBits, every node's noise
// is g·N_Z(0, 4^kSumGridBits), and the prefix is g times an integer sum.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "edgeadmm/algorithms/algorithm.h"
#include "edgeadmm/status.h"

namespace edgeadmm::algorithms {

// Levels 0..L of a tree over at most `rounds` rounds, L = ⌊log₂ rounds⌋
// (a level-l node completes at round 2^l, so no higher level is released).
int TreeLevels(int64_t rounds);

// B(j) = Σ_{l=0}^{levels−1} j·min(j, 2^l): a bound on Σ over nodes of n²,
// where n is how many of a device's j participations fall in the node. At
// each level the counts sum to j and none exceeds min(j, 2^l), so their
// squares sum to at most j·min(j, 2^l), however the participations fall.
double TreeSquaredCountBound(int64_t participations, int levels);

// The tree's state, kept in ServerModel::state, in grid steps (integers):
// the raw prefix sum of the rounded round sums (p values), the newest node
// noise of each level (levels·p), then t, the rounds added so far. A p-long
// vector of zeros (a new job's state) is t = 0.
size_t TreeStateLength(size_t p, int levels);

// Adds round t + 1's `sum` (p values): draws a fresh noise for every level l
// with 2^l dividing t + 1, and writes the noisy prefix sum of rounds 1..t+1
// to `noisy_prefix`. `noise` is called as AddNoise(2^kSumGridBits, zeros)
// (node noise in grid steps). INVALID_ARGUMENT for a state of another shape
// or a bad sigma/sum; OUT_OF_RANGE past the tree or for |sum_i|/g ≥ 2^52.
Status TreeAddRound(const std::vector<double>& sum, double sigma, int levels,
                    RoundNoise& noise, std::vector<double>& state,
                    std::vector<double>& noisy_prefix);

}  // namespace edgeadmm::algorithms
