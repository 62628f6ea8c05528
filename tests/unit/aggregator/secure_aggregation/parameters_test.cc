// The SecAgg+ degree and threshold choice
// (aggregator/secure_aggregation/src/parameters.cc): the hypergeometric
// tail against a brute-force count over every k-subset of a small
// population, the chosen k meets the three goals and k - 2 does not, k
// grows like log n at a fixed corrupt and dropout fraction (k << n), and
// impossible goals are refused.
#include "edgeadmm/secure_aggregation/parameters.h"

#include <cmath>
#include <cstdint>

#include "gtest/gtest.h"

namespace edgeadmm::secure_aggregation {
namespace {

int PopCount(uint32_t v) {
  int c = 0;
  for (; v != 0; v &= v - 1) ++c;
  return c;
}

TEST(SecAggParametersTest, HypergeometricTailMatchesBruteForce) {
  const uint32_t population = 14;
  for (uint32_t marked = 0; marked <= 6; marked += 3) {
    for (uint32_t draws = 1; draws <= 6; ++draws) {
      for (uint32_t at_least = 0; at_least <= draws; ++at_least) {
        // Marked items are 0..marked-1; count the draws-subsets with at
        // least `at_least` of them.
        double hits = 0, total = 0;
        for (uint32_t set = 0; set < (1u << population); ++set) {
          if (PopCount(set) != static_cast<int>(draws)) continue;
          total += 1;
          hits +=
              PopCount(set & ((1u << marked) - 1)) >= static_cast<int>(at_least)
                  ? 1
                  : 0;
        }
        const double log2_tail =
            Log2HypergeometricTail(population, marked, draws, at_least);
        if (hits == 0) {
          EXPECT_TRUE(std::isinf(log2_tail) && log2_tail < 0);
        } else {
          EXPECT_NEAR(log2_tail, std::log2(hits / total), 1e-9)
              << marked << " " << draws << " " << at_least;
        }
      }
    }
  }
}

TEST(SecAggParametersTest, ChosenDegreeMeetsTheGoalsAndIsTheSmallest) {
  const uint32_t sizes[] = {100, 1000, 10000, 100000};
  uint32_t previous = 0;
  for (uint32_t n : sizes) {
    SecAggGoal goal;
    goal.devices = n;
    goal.corrupt = n / 20;   // 5% colluding devices
    goal.dropouts = n / 10;  // 10% dropouts
    const auto p = ChooseSecAggParameters(goal);
    ASSERT_TRUE(p.has_value()) << n;
    EXPECT_EQ(p->degree % 2, 0u);
    EXPECT_EQ(p->threshold, p->degree / 2 + 1);
    EXPECT_LE(p->log2_leak, -40);
    EXPECT_LE(p->log2_partial_sum, -40);
    EXPECT_LE(p->log2_loss, -20);
    const SecAggParameters smaller = EvaluateSecAgg(goal, p->degree - 2);
    EXPECT_TRUE(smaller.log2_leak > -40 || smaller.log2_partial_sum > -40 ||
                smaller.log2_loss > -20);
    EXPECT_GE(p->degree, previous);
    // O(log n): at most a few times log2 n, far below n.
    EXPECT_LE(p->degree, 8 * std::log2(static_cast<double>(n))) << n;
    previous = p->degree;
    std::printf("n %u: k %u, s %u, log2 P leak %.1f loss %.1f partial %.1f\n",
                n, p->degree, p->threshold, p->log2_leak, p->log2_loss,
                p->log2_partial_sum);
  }
}

TEST(SecAggParametersTest, SmallCohorts) {
  // n = 10, 2 corrupt, 2 dropouts: k = 6, s = 4 makes every event
  // impossible (2 < s corrupt, 2 < k - s + 1 dropped, 4 < k removed).
  SecAggGoal goal;
  goal.devices = 10;
  goal.corrupt = 2;
  goal.dropouts = 2;
  auto p = ChooseSecAggParameters(goal);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->degree, 6u);
  EXPECT_EQ(p->threshold, 4u);
  EXPECT_TRUE(std::isinf(p->log2_leak) && std::isinf(p->log2_loss) &&
              std::isinf(p->log2_partial_sum));
  // n = 5, one of each: k = 2 can lose a share holder, so the complete
  // graph (k = 4, s = 3: the original SecAgg).
  goal.devices = 5;
  goal.corrupt = 1;
  goal.dropouts = 1;
  p = ChooseSecAggParameters(goal);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->degree, 4u);
  EXPECT_EQ(p->threshold, 3u);
}

TEST(SecAggParametersTest, RefusesImpossibleGoals) {
  SecAggGoal goal;
  goal.devices = 1000;
  goal.corrupt = 400;  // 40% corrupt, 30% dropped: no k <= 254 works
  goal.dropouts = 300;
  EXPECT_FALSE(ChooseSecAggParameters(goal).has_value());
  goal.devices = 2;
  goal.corrupt = 0;
  goal.dropouts = 0;
  EXPECT_FALSE(ChooseSecAggParameters(goal).has_value());
  goal.devices = 100;
  goal.corrupt = 60;
  goal.dropouts = 40;
  EXPECT_FALSE(ChooseSecAggParameters(goal).has_value());
}

}  // namespace
}  // namespace edgeadmm::secure_aggregation
