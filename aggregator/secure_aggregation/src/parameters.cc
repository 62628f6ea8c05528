// The SecAgg+ degree and threshold (see parameters.h).
#include "edgeadmm/secure_aggregation/parameters.h"

#include <cmath>
#include <limits>

#include "edgeadmm/secagg/neighbour_graph.h"

namespace edgeadmm::secure_aggregation {
namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

double LogChoose(double n, double k) {
  return std::lgamma(n + 1) - std::lgamma(k + 1) - std::lgamma(n - k + 1);
}

double Log2Sum(double a, double b) {  // log2(2^a + 2^b)
  if (a == kNegInf) return b;
  if (b == kNegInf) return a;
  const double hi = a > b ? a : b;
  return hi + std::log2(std::exp2(a - hi) + std::exp2(b - hi));
}

// log2 prod_{j<k} (R - j)/(n - j): k given positions all removed.
double Log2AllRemoved(uint32_t n, uint32_t removed, uint32_t k) {
  if (removed < k) return kNegInf;
  double sum = 0;
  for (uint32_t j = 0; j < k; ++j) {
    sum += std::log2(static_cast<double>(removed - j) / (n - j));
  }
  return sum;
}

}  // namespace

double Log2HypergeometricTail(uint32_t population, uint32_t marked,
                              uint32_t draws, uint32_t at_least) {
  double total = kNegInf;
  const uint32_t top = marked < draws ? marked : draws;
  for (uint32_t x = at_least; x <= top; ++x) {
    if (draws - x > population - marked) continue;
    const double ln = LogChoose(marked, x) +
                      LogChoose(population - marked, draws - x) -
                      LogChoose(population, draws);
    total = Log2Sum(total, ln / std::log(2.0));
  }
  return total;
}

SecAggParameters EvaluateSecAgg(const SecAggGoal& goal, uint32_t degree) {
  const uint32_t n = goal.devices;
  const bool complete = uint64_t{degree} + 1 >= n;
  const uint32_t k = complete ? n - 1 : degree;
  SecAggParameters p;
  p.degree = k;
  p.threshold = k / 2 + 1;
  const double log2_n = std::log2(static_cast<double>(n));
  p.log2_leak =
      log2_n + Log2HypergeometricTail(n - 1, goal.corrupt, k, p.threshold);
  p.log2_loss = log2_n + Log2HypergeometricTail(n - 1, goal.dropouts, k,
                                                k - p.threshold + 1);
  const uint32_t removed = goal.corrupt + goal.dropouts;
  p.log2_partial_sum =
      complete ? kNegInf
               : 2 * log2_n + Log2AllRemoved(n, removed < n ? removed : n, k);
  return p;
}

std::optional<SecAggParameters> ChooseSecAggParameters(const SecAggGoal& goal) {
  if (goal.devices < 3 || goal.corrupt + goal.dropouts >= goal.devices) {
    return std::nullopt;
  }
  const uint32_t n = goal.devices;
  for (uint32_t k = 2; k <= kSecAggMaxNeighbours; k += 2) {
    const bool complete = k + 1 >= n;
    if (complete && n - 1 > kSecAggMaxNeighbours) break;
    const SecAggParameters p = EvaluateSecAgg(goal, k);
    if (p.log2_leak <= -goal.security_bits &&
        p.log2_partial_sum <= -goal.security_bits &&
        p.log2_loss <= -goal.correctness_bits) {
      return p;
    }
    if (complete) break;
  }
  return std::nullopt;
}

}  // namespace edgeadmm::secure_aggregation
