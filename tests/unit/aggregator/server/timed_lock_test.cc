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
  TimedLock lock;
  lock.set_time_cpu(true);
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

TEST(TimedLockTest, NoCpuTimeUnlessAsked) {
  TimedLock lock;
  {
    const std::lock_guard<TimedLock> held(lock);
    Spin(20);
  }
  EXPECT_GE(lock.held_ns(), 20'000'000u);
  EXPECT_EQ(lock.held_cpu_ns(), 0u);
}

}  // namespace
}  // namespace edgeadmm::server
