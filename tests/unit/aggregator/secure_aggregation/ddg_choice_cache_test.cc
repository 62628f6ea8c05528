// The cache of distributed discrete Gaussian choices: a goal that differs in
// any one field misses, the oldest goal is dropped at capacity, and a
// remembered choice is the one the search finds.
#include "edgeadmm/secure_aggregation/ddg_choice_cache.h"

#include <functional>
#include <vector>

#include "gtest/gtest.h"

namespace edgeadmm::secure_aggregation {
namespace {

DdgGoal SmallGoal() {
  DdgGoal g;
  g.rounds = 5;
  g.cohort = 40;
  g.colluders = 2;
  g.dropouts = 4;
  g.dimension = 10;
  return g;
}

DdgParameters WithBits(uint32_t bits) {
  DdgParameters p;
  p.bits = bits;
  return p;
}

TEST(DdgChoiceCacheTest, AGoalThatDiffersInAnyFieldMisses) {
  const std::vector<std::function<void(DdgGoal&)>> changes = {
      [](DdgGoal& g) { g.epsilon *= 2; },
      [](DdgGoal& g) { g.delta /= 10; },
      [](DdgGoal& g) { g.conversion = privacy::Conversion::kClassic; },
      [](DdgGoal& g) { g.rounds += 1; },
      [](DdgGoal& g) { g.cohort += 1; },
      [](DdgGoal& g) { g.colluders += 1; },
      [](DdgGoal& g) { g.dropouts += 1; },
      [](DdgGoal& g) { g.dimension += 1; },
      [](DdgGoal& g) { g.clip *= 2; },
      [](DdgGoal& g) { g.max_bits -= 1; },
      [](DdgGoal& g) { g.log2_wrap -= 1; },
      [](DdgGoal& g) { g.beta = 0.01; },
      [](DdgGoal& g) { g.mse_slack *= 2; },
  };
  DdgChoiceCache cache(4);
  cache.Insert(SmallGoal(), WithBits(7));
  ASSERT_TRUE(cache.Find(SmallGoal()).has_value());
  EXPECT_EQ(cache.Find(SmallGoal())->bits, 7u);
  for (size_t i = 0; i < changes.size(); ++i) {
    DdgGoal other = SmallGoal();
    changes[i](other);
    EXPECT_FALSE(SameDdgGoal(other, SmallGoal())) << "change " << i;
    EXPECT_FALSE(cache.Find(other).has_value()) << "change " << i;
  }
}

TEST(DdgChoiceCacheTest, DropsTheOldestGoalAtCapacity) {
  DdgChoiceCache cache(2);
  DdgGoal a = SmallGoal(), b = SmallGoal(), c = SmallGoal();
  b.cohort = 50;
  c.cohort = 60;
  cache.Insert(a, WithBits(1));
  cache.Insert(b, WithBits(2));
  cache.Insert(a, WithBits(3));  // replaces a's answer, now the newest
  cache.Insert(c, WithBits(4));  // drops b
  EXPECT_FALSE(cache.Find(b).has_value());
  ASSERT_TRUE(cache.Find(a).has_value());
  EXPECT_EQ(cache.Find(a)->bits, 3u);
  ASSERT_TRUE(cache.Find(c).has_value());
  EXPECT_EQ(cache.Find(c)->bits, 4u);
  DdgChoiceCache none(0);
  none.Insert(a, WithBits(1));
  EXPECT_FALSE(none.Find(a).has_value());
}

TEST(DdgChoiceCacheTest, ARememberedChoiceIsTheSearchedOne) {
  const DdgGoal g = SmallGoal();
  const auto first = ChooseDdgParameters(g);
  ASSERT_TRUE(first.ok()) << first.error().message();
  const auto again = ChooseDdgParameters(g);
  ASSERT_TRUE(again.ok());
  // The search's answer, evaluated afresh, is what the second call returns.
  const auto fresh =
      EvaluateDdg(g, first->bits, first->gamma, first->sigma_grid);
  ASSERT_TRUE(fresh.ok());
  for (const DdgParameters* p : {&*again, &*fresh}) {
    EXPECT_EQ(p->bits, first->bits);
    EXPECT_EQ(p->gamma, first->gamma);
    EXPECT_EQ(p->sigma_grid, first->sigma_grid);
    EXPECT_EQ(p->norm_bound, first->norm_bound);
    EXPECT_EQ(p->honest_devices, first->honest_devices);
    EXPECT_EQ(p->epsilon, first->epsilon);
    EXPECT_LE(p->epsilon, g.epsilon);
  }
  // A goal the search refuses is refused every time (nothing cached).
  DdgGoal bad = g;
  bad.dropouts = g.cohort;
  EXPECT_FALSE(ChooseDdgParameters(bad).ok());
  EXPECT_FALSE(ChooseDdgParameters(bad).ok());
}

}  // namespace
}  // namespace edgeadmm::secure_aggregation
