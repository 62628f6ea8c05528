// TimedLock: the time its holders held it, as wall time and as their own
// CPU time.
#include "edgeadmm/server/timed_lock.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <mutex>
#include <thread>

namespace edgeadmm::server {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

// Burns this thread's CPU for at least `ms` of wall time.
void Spin(int ms) {
  const steady_clock::time_point end = steady_clock::now() + milliseconds(ms);
  volatile uint64_t sink = 0;
  while (steady_clock::now() < end) sink = sink + 1;
}

TEST(TimedLockTest, HeldCountsWallAndCpuApart) {
  TimedLock lock(1);  // every hold's CPU time read
  {
    const std::lock_guard<TimedLock> held(lock);
    std::this_thread::sleep_for(milliseconds(60));  // held, no CPU
  }
  EXPECT_GE(lock.held_ns(), 60'000'000u);
  EXPECT_LT(lock.held_cpu_ns(), 30'000'000u);
  const uint64_t cpu_before = lock.held_cpu_ns();
  {
    const std::lock_guard<TimedLock> held(lock);
    const std::lock_guard<TimedLock> again(lock);  // inner: not counted twice
    Spin(40);
  }
  // On a loaded machine the spinning thread may get less than its wall
  // time; it gets some.
  EXPECT_GT(lock.held_cpu_ns(), cpu_before);
  EXPECT_GE(lock.held_ns(), 100'000'000u);
  EXPECT_LE(lock.held_cpu_ns(), lock.held_ns());
}

// One hold in eight (at random) has its CPU time read, counted eight
// times: over many holds of the same work the estimate is near the total.
TEST(TimedLockTest, SampledCpuTimeEstimatesTheTotal) {
  TimedLock every(1);
  TimedLock sampled(8);
  for (int i = 0; i < 4000; ++i) {
    const std::lock_guard<TimedLock> outer(every);
    const std::lock_guard<TimedLock> inner(sampled);
    Spin(0);  // a few clock reads: microseconds of CPU
    volatile uint64_t sink = 0;
    for (int k = 0; k < 2000; ++k) sink = sink + k;
  }
  const double all = static_cast<double>(every.held_cpu_ns());
  const double estimate = static_cast<double>(sampled.held_cpu_ns());
  ASSERT_GT(all, 0);
  // 500 sampled holds of like length: within a third of the total.
  EXPECT_GT(estimate, all * 2 / 3);
  EXPECT_LT(estimate, all * 4 / 3);
}

}  // namespace
}  // namespace edgeadmm::server
