// RequestBudget: a token bucket per identity, with Max-Age for the refused.
#include "edgeadmm/server/request_budget.h"

#include <gtest/gtest.h>

namespace edgeadmm::server {
namespace {

TEST(RequestBudgetTest, BurstThenRateThenMaxAge) {
  RequestBudget budget({/*requests_per_second=*/2, /*burst=*/5});
  for (int i = 0; i < 5; ++i) EXPECT_EQ(budget.Take("a", 1000), 0) << i;
  EXPECT_EQ(budget.Take("a", 1000), 1);  // one token in 0.5 s: Max-Age 1
  EXPECT_EQ(budget.Take("b", 1000), 0);  // another identity's own bucket
  EXPECT_EQ(budget.Take("a", 1400), 1);
  EXPECT_EQ(budget.Take("a", 1500), 0);  // 0.5 s earned one
  EXPECT_EQ(budget.Take("a", 1500), 1);
}

TEST(RequestBudgetTest, DebitsMakeTheWaitLonger) {
  RequestBudget budget({/*requests_per_second=*/1, /*burst=*/1});
  EXPECT_EQ(budget.Take("a", 0), 0);
  for (int i = 0; i < 4; ++i) budget.Debit("a", 0);
  EXPECT_EQ(budget.Take("a", 0), 5);  // five requests owed at one per second
}

TEST(RequestBudgetTest, ZeroRateTurnsItOff) {
  RequestBudget budget({/*requests_per_second=*/0, /*burst=*/1});
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(budget.Take("a", 0), 0);
  EXPECT_EQ(budget.tracked(), 0u);
}

TEST(RequestBudgetTest, PruneForgetsRefilledBuckets) {
  RequestBudget budget({/*requests_per_second=*/10, /*burst=*/10});
  const int64_t t0 = RequestBudget::kPruneIntervalMs;
  EXPECT_EQ(budget.Take("idle", t0), 0);
  for (int i = 0; i < 10; ++i) budget.Take("busy", t0 + 2 * 1000 - 1);
  budget.Prune(t0 + 2 * 1000);
  // "idle" refilled after 0.1 s; "busy" spent its bucket just now.
  EXPECT_EQ(budget.tracked(), 1u);
  EXPECT_EQ(budget.Take("busy", t0 + 2 * 1000), 1);
}

}  // namespace
}  // namespace edgeadmm::server
