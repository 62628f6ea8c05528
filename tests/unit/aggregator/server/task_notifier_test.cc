// TaskNotifier with two hosted jobs (docs/aggregator.md, "Task heartbeat"):
// each job's task is due on its own changes and heartbeat, v1/task on any
// job's change and once per heartbeat, an unloaded job once more.
#include "edgeadmm/server/task_notifier.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "edgeadmm/server/job_host.h"
#include "edgeadmm/server/request_handler.h"
#include "test_database.h"

namespace edgeadmm::server {
namespace {

using Names = std::vector<std::string>;

TEST(TaskNotifierTest, EachJobOnItsOwnAndTaskOnceAPeriod) {
  testing::TempDatabase t;
  testing::EnrollDevices(t.db(), 2);
  testing::StartEveryoneJob(t.db(), "alpha", testing::DefaultPrivacyTable());
  testing::StartEveryoneJob(t.db(), "beta", testing::DefaultPrivacyTable());
  RequestHandler handler(nullptr);
  JobHost host(t.db(), handler);
  const int64_t t0 = 1'000'000;
  ASSERT_TRUE(host.PickUpRunningJob(t0).ok());
  host.Tick(t0);  // opens a round of each
  const std::vector<rounds::RoundEngine*> both = host.engines();
  ASSERT_EQ(both.size(), 2u);
  ASSERT_TRUE(both[0]->round_open() && both[1]->round_open());
  const std::vector<rounds::RoundEngine*> alpha_only = {both[0]};

  TaskNotifier notifier(1000);
  TaskNotifier::Due due = notifier.Take(alpha_only, t0);  // alpha loaded
  EXPECT_EQ(due.jobs, Names{"alpha"});
  EXPECT_TRUE(due.task);
  due = notifier.Take(alpha_only, t0 + 100);  // nothing changed
  EXPECT_EQ(due.jobs, Names{});
  EXPECT_FALSE(due.task);
  due = notifier.Take(both, t0 + 500);  // beta loaded: a change
  EXPECT_EQ(due.jobs, Names{"beta"});
  EXPECT_TRUE(due.task);
  // Alpha's heartbeat; v1/task heard beta's change 500 ms ago.
  due = notifier.Take(both, t0 + 1000);
  EXPECT_EQ(due.jobs, Names{"alpha"});
  EXPECT_FALSE(due.task);
  // Beta's heartbeat, and v1/task's.
  due = notifier.Take(both, t0 + 1500);
  EXPECT_EQ(due.jobs, Names{"beta"});
  EXPECT_TRUE(due.task);
  due = notifier.Take(both, t0 + 1999);
  EXPECT_EQ(due.jobs, Names{});
  EXPECT_FALSE(due.task);
  // Beta unloaded: its observers hear once more (their job is gone).
  due = notifier.Take(alpha_only, t0 + 2000);
  EXPECT_EQ(due.jobs, (Names{"alpha", "beta"}));
  EXPECT_TRUE(due.task);
  due = notifier.Take(alpha_only, t0 + 2100);
  EXPECT_EQ(due.jobs, Names{});

  // Without a heartbeat only changes count.
  TaskNotifier quiet(0);
  EXPECT_EQ(quiet.Take(both, t0).jobs, (Names{"alpha", "beta"}));
  due = quiet.Take(both, t0 + 60'000);
  EXPECT_EQ(due.jobs, Names{});
  EXPECT_FALSE(due.task);
}

}  // namespace
}  // namespace edgeadmm::server
