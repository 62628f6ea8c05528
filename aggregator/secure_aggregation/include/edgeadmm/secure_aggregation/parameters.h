// The SecAgg+ parameters of a round: the neighbour degree k and the Shamir
// threshold s, from the cohort size n, the number of corrupt devices T the
// round must withstand (the privacy policy's t) and the number of dropouts
// D it must survive. Bell et al. (CCS 2020, §3-4) show k = O(log n)
// suffices for a random graph; here k is the smallest even degree whose
// three failure probabilities, computed exactly for the graph of
// sdk/include/edgeadmm/secagg/neighbour_graph.h, meet the goals:
//
// The seed is drawn after the corrupt set is fixed and dropouts do not
// depend on the graph (the semi-honest model), so a device's neighbours are
// a uniformly random k-subset of the other n - 1, and the corrupt or
// dropped devices sit at uniformly random ring positions. With
// s = floor(k/2) + 1 (a majority of the neighbours: no two disjoint sets of
// neighbours can both reconstruct one secret):
//  1. secrecy: the adversary learns some honest device's secrets only if
//     >= s of its k neighbours are corrupt:
//       P1 <= n * P[Hypergeometric(n-1, T, k) >= s];
//  2. correctness: a dropped device's mask key is lost only if fewer than
//     s neighbours survive, i.e. >= k - s + 1 of them dropped:
//       P2 <= n * P[Hypergeometric(n-1, D, k) >= k - s + 1];
//  3. no partial sums: the gateway learns only the sum of all honest
//     survivors if their subgraph is connected. In the Harary ring a vertex
//     set is cut off only by two disjoint runs of k/2 consecutive removed
//     (corrupt or dropped, R = T + D) positions, so
//       P3 <= n^2 * prod_{j<k} (R - j)/(n - j)  (0 when R < k).
// The goals are P1, P3 <= 2^-security_bits and P2 <= 2^-correctness_bits.
// When k >= n - 1 the graph is complete (P3 = 0).
#pragma once

#include <cstdint>
#include <optional>

namespace edgeadmm::secure_aggregation {

struct SecAggGoal {
  uint32_t devices = 0;   // n
  uint32_t corrupt = 0;   // T, colluding devices (with the gateway)
  uint32_t dropouts = 0;  // D, devices that may drop in the round
  double security_bits = 40.0;
  double correctness_bits = 20.0;
};

struct SecAggParameters {
  uint32_t degree = 0;     // k (n - 1 for the complete graph)
  uint32_t threshold = 0;  // s = floor(k/2) + 1
  double log2_leak = 0;    // log2 of the bounds P1, P2, P3 above
  double log2_loss = 0;
  double log2_partial_sum = 0;
};

// log2 P[X >= at_least], X ~ Hypergeometric(population, marked, draws);
// -inf when impossible.
double Log2HypergeometricTail(uint32_t population, uint32_t marked,
                              uint32_t draws, uint32_t at_least);

// The bounds above for a given degree (even, or >= n - 1).
SecAggParameters EvaluateSecAgg(const SecAggGoal& goal, uint32_t degree);

// The smallest degree meeting the goals (even k <= 254, or the complete
// graph when n - 1 <= 254); nullopt when none does or n < 3.
std::optional<SecAggParameters> ChooseSecAggParameters(const SecAggGoal& goal);

}  // namespace edgeadmm::secure_aggregation
