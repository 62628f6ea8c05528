#include "edgeadmm/server/timed_lock.h"

#include <time.h>

namespace edgeadmm::server {
namespace {

uint64_t NowNs() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<uint64_t>(now.tv_sec) * 1000000000u +
         static_cast<uint64_t>(now.tv_nsec);
}

}  // namespace

void TimedLock::lock() {
  const uint64_t asked = NowNs();
  mutex_.lock();
  if (depth_++ > 0) return;
  since_ns_ = NowNs();
  waited_ns_.fetch_add(since_ns_ - asked, std::memory_order_relaxed);
}

void TimedLock::unlock() {
  if (--depth_ == 0) {
    held_ns_.fetch_add(NowNs() - since_ns_, std::memory_order_relaxed);
  }
  mutex_.unlock();
}

}  // namespace edgeadmm::server
