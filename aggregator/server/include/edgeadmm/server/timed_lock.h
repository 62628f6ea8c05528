// TimedLock: a recursive mutex that adds up how long it was held and how
// long threads waited for it, for operators: the daemon's state lock
// (CoapServer's; its handlers, session events and tick run under it while
// the shards' I/O runs on `[server] threads`), so the share of the daemon's
// CPU that cannot run on a second core is measured, not guessed: as wall
// time (a holder descheduled by other processes counts too) and as the
// holders' own CPU time. Only a thread's outermost hold counts (taking it
// again inside costs no time). The CPU time is read only when asked
// (set_time_cpu): a thread's CPU clock costs a system call (no vDSO), about
// 3% of the daemon's CPU when read at every hold (a `perf` profile at
// 10,000 devices), and the daemon asks only when it writes metrics.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>

namespace edgeadmm::server {

class TimedLock {
 public:
  void lock();
  void unlock();
  // Whether holds read their thread's CPU clock (held_cpu_ns); set before
  // any thread takes the lock.
  void set_time_cpu(bool time_cpu) { time_cpu_ = time_cpu; }

  // Nanoseconds held and waited for so far, over all threads.
  uint64_t held_ns() const { return held_ns_.load(std::memory_order_relaxed); }
  // CPU nanoseconds the holding threads spent holding it (0 unless
  // set_time_cpu).
  uint64_t held_cpu_ns() const {
    return held_cpu_ns_.load(std::memory_order_relaxed);
  }
  uint64_t waited_ns() const {
    return waited_ns_.load(std::memory_order_relaxed);
  }

 private:
  std::recursive_mutex mutex_;
  // The holder's depth and the start of its outermost hold (written only
  // by the holder).
  int depth_ = 0;
  uint64_t since_ns_ = 0;
  uint64_t since_cpu_ns_ = 0;
  bool time_cpu_ = false;
  std::atomic<uint64_t> held_ns_{0};
  std::atomic<uint64_t> held_cpu_ns_{0};
  std::atomic<uint64_t> waited_ns_{0};
};

}  // namespace edgeadmm::server
