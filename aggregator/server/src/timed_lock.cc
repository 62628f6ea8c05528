#include "edgeadmm/server/timed_lock.h"

#include <time.h>

namespace edgeadmm::server {
namespace {

uint64_t Ns(clockid_t clock) {
  timespec now{};
  clock_gettime(clock, &now);
  return static_cast<uint64_t>(now.tv_sec) * 1000000000u +
         static_cast<uint64_t>(now.tv_nsec);
}
uint64_t NowNs() { return Ns(CLOCK_MONOTONIC); }
uint64_t ThreadCpuNs() { return Ns(CLOCK_THREAD_CPUTIME_ID); }

}  // namespace

void TimedLock::lock() {
  const uint64_t asked = NowNs();
  mutex_.lock();
  if (depth_++ > 0) return;
  since_ns_ = NowNs();
  if (time_cpu_) since_cpu_ns_ = ThreadCpuNs();
  waited_ns_.fetch_add(since_ns_ - asked, std::memory_order_relaxed);
}

void TimedLock::unlock() {
  if (--depth_ == 0) {
    held_ns_.fetch_add(NowNs() - since_ns_, std::memory_order_relaxed);
    if (time_cpu_) {
      held_cpu_ns_.fetch_add(ThreadCpuNs() - since_cpu_ns_,
                             std::memory_order_relaxed);
    }
  }
  mutex_.unlock();
}

}  // namespace edgeadmm::server
