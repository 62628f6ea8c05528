// posix::MonotonicMs never goes back and follows CLOCK_MONOTONIC.
#include <time.h>

#include "edgeadmm/posix/monotonic_clock.h"
#include "gtest/gtest.h"

namespace edgeadmm::posix {
namespace {

TEST(MonotonicClockTest, NeverDecreasesAndMatchesTheKernelClock) {
  uint64_t previous = MonotonicMs();
  for (int i = 0; i < 100000; ++i) {
    const uint64_t now = MonotonicMs();
    ASSERT_GE(now, previous);
    previous = now;
  }
  timespec ts{};
  ASSERT_EQ(clock_gettime(CLOCK_MONOTONIC, &ts), 0);
  const uint64_t kernel_ms = static_cast<uint64_t>(ts.tv_sec) * 1000u +
                             static_cast<uint64_t>(ts.tv_nsec) / 1000000u;
  const uint64_t ours = MonotonicMs();
  EXPECT_GE(ours, kernel_ms);
  EXPECT_LE(ours - kernel_ms, 1000u);  // read within a second of each other
}

}  // namespace
}  // namespace edgeadmm::posix
