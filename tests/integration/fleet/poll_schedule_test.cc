// PollSchedule (edgeadmm-fleet's event loop): a device is listed when it
// asked for the next pass, when its transport woke it or when its timer is
// due; once per pass; a replaced timer does not fire; the wait is 0 while
// a device waits for the next pass and ends at the first timer.
#include "edgeadmm/fleet/poll_schedule.h"

#include <gtest/gtest.h>

#include <vector>

namespace edgeadmm::fleet {
namespace {

using List = std::vector<size_t>;

TEST(PollScheduleTest, NothingIsDueUntilAsked) {
  PollSchedule schedule(4);
  EXPECT_EQ(schedule.Due(1000, {}), List{});
  EXPECT_EQ(schedule.WaitMs(1000, 20), 20u);
}

TEST(PollScheduleTest, NextPassWokenAndDueTimersEachOnce) {
  PollSchedule schedule(5);
  schedule.Now(3);
  schedule.Now(3);
  schedule.At(1, 100);
  schedule.At(4, 150);
  EXPECT_EQ(schedule.WaitMs(90, 20), 0u);  // device 3 waits for the pass
  // 3 asked twice, 1 woken and due: each listed once; 4 is not due yet.
  EXPECT_EQ(schedule.Due(100, {1, 0, 1}), (List{3, 1, 0}));
  EXPECT_EQ(schedule.WaitMs(100, 20), 20u);  // 4 is due at 150 > 100 + 20
  EXPECT_EQ(schedule.WaitMs(140, 20), 10u);
  EXPECT_EQ(schedule.Due(149, {}), List{});
  EXPECT_EQ(schedule.Due(150, {}), (List{4}));
  // A timer fires once.
  EXPECT_EQ(schedule.Due(500, {}), List{});
}

TEST(PollScheduleTest, ALaterTimeOrTheNextPassReplacesATimer) {
  PollSchedule schedule(3);
  schedule.At(0, 100);
  schedule.At(0, 300);  // woken and rescheduled
  schedule.At(1, 100);
  schedule.Now(1);  // asked for the next pass: its timer is dropped
  EXPECT_EQ(schedule.Due(50, {}), (List{1}));
  EXPECT_EQ(schedule.Due(200, {}), List{});
  EXPECT_EQ(schedule.Due(300, {}), (List{0}));
}

TEST(PollScheduleTest, IndicesOutOfRangeAreIgnored) {
  PollSchedule schedule(2);
  schedule.Now(2);
  schedule.At(7, 10);
  EXPECT_EQ(schedule.Due(100, {5, 1}), (List{1}));
  EXPECT_EQ(schedule.WaitMs(100, 20), 20u);
}

}  // namespace
}  // namespace edgeadmm::fleet
