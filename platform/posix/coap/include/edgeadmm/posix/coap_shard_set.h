// CoapShardSet: several libcoap contexts ("shards", e.g. one per
// SO_REUSEPORT socket of one port) run by one thread or several. Each pass
// waits on an epoll set of the contexts' epoll descriptors and then runs
// only the shards that are ready (a datagram, or libcoap's timer fd of the
// context expired: a retransmission, notification, DTLS or idle timeout is
// due) or whose walk is due (CoapBatchedIo::MsUntilWalk). So a datagram
// costs one shard's pass, not one per shard, and an idle shard is walked
// when its timers say so.
//
// With `threads` > 1 the passes of one RunOnce are spread over the caller
// and threads - 1 workers: shard i is always passed by thread i % threads,
// and RunOnce returns when every pass has ended. So one shard's passes
// never overlap and follow each other in order; a shard's callbacks into
// the owner run on several threads at once only across shards (the owner
// locks what its shards share), and between two RunOnce calls no pass runs.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "edgeadmm/posix/coap_batched_io.h"

struct coap_context_t;
struct epoll_event;

namespace edgeadmm::posix {

// The walk interval (CoapBatchedIoOptions::walk_interval_ms) of a shard run
// by a CoapShardSet: the longest an idle shard goes unwalked. libcoap's
// timer fd and RequestWalk cover what needs a walk; this is a backstop.
constexpr int64_t kShardBackstopWalkMs = 1000;

class CoapShardSet {
 public:
  // Runs a worker's share of one RunOnce (`passes`) inside the owner's
  // per-thread setup, e.g. the caller's thread-local state.
  using WorkerScope = std::function<void(const std::function<void()>& passes)>;

  // `threads` (at least 1) run the passes: the caller and threads - 1
  // workers started here.
  explicit CoapShardSet(size_t threads = 1);
  ~CoapShardSet();
  CoapShardSet(const CoapShardSet&) = delete;
  CoapShardSet& operator=(const CoapShardSet&) = delete;

  // Adds `context` as the next shard, run by `io` (null: coap_io_process,
  // which walks on every pass, so such a shard gets one on every RunOnce).
  // Both must outlive this object. False on an epoll error.
  bool Add(coap_context_t* context, CoapBatchedIo* io);

  // Each worker runs its passes inside `scope` (default: as they are). Set
  // it before the first RunOnce.
  void set_worker_scope(WorkerScope scope) { scope_ = std::move(scope); }

  // Waits up to `timeout_ms` for a ready shard (less when a walk falls due
  // earlier), then gives one pass without waiting to each ready or due
  // shard, on its thread. Returns the passes run, -1 on an I/O error.
  int RunOnce(int timeout_ms);

  // Every shard walks at its next pass (the owner changed sessions outside
  // libcoap's I/O).
  void RequestWalks();

  size_t size() const { return shards_.size(); }
  size_t threads() const { return workers_.size() + 1; }
  // Passes given to `shard` (tests and diagnostics).
  uint64_t passes(size_t shard) const { return shards_[shard].passes; }
  // The thread that gave `shard` its last pass (tests).
  std::thread::id last_thread(size_t shard) const {
    return shards_[shard].last_thread;
  }

 private:
  struct Shard {
    coap_context_t* context = nullptr;
    CoapBatchedIo* io = nullptr;
    uint64_t passes = 0;
    std::thread::id last_thread;
  };
  // Passes the chosen shards of thread `thread`; false on an I/O error.
  bool PassShare(size_t thread);
  bool Pass(Shard& shard);
  void Work(size_t thread);

  int poll_fd_ = -1;
  std::vector<Shard> shards_;
  std::vector<epoll_event> ready_;
  std::vector<bool> chosen_;
  WorkerScope scope_;
  // The workers' hand-off: a new generation starts their shares, `running_`
  // counts those not finished.
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable start_, done_;
  uint64_t generation_ = 0;
  size_t running_ = 0;
  bool failed_ = false;
  bool stopping_ = false;
};

}  // namespace edgeadmm::posix
