// CoapShardSet: several libcoap contexts ("shards", e.g. one per
// SO_REUSEPORT socket of one port) run by one thread. Each pass waits on an
// epoll set of the contexts' epoll descriptors and then runs only the shards
// that are ready (a datagram, or libcoap's timer fd of the context expired:
// a retransmission, notification, DTLS or idle timeout is due) or whose walk
// is due (CoapBatchedIo::MsUntilWalk). So a datagram costs one shard's pass,
// not one per shard, and an idle shard is walked when its timers say so.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "edgeadmm/posix/coap_batched_io.h"

struct coap_context_t;
struct epoll_event;

namespace edgeadmm::posix {

class CoapShardSet {
 public:
  CoapShardSet();
  ~CoapShardSet();
  CoapShardSet(const CoapShardSet&) = delete;
  CoapShardSet& operator=(const CoapShardSet&) = delete;

  // Adds `context` as the next shard, run by `io` (null: coap_io_process,
  // which walks on every pass, so such a shard gets one on every RunOnce).
  // Both must outlive this object. False on an epoll error.
  bool Add(coap_context_t* context, CoapBatchedIo* io);

  // Waits up to `timeout_ms` for a ready shard (less when a walk falls due
  // earlier), then gives one pass without waiting to each ready or due
  // shard. Returns the passes run, -1 on an I/O error.
  int RunOnce(int timeout_ms);

  // Every shard walks at its next pass (the owner changed sessions outside
  // libcoap's I/O).
  void RequestWalks();

  size_t size() const { return shards_.size(); }
  // Passes given to `shard` (tests and diagnostics).
  uint64_t passes(size_t shard) const { return shards_[shard].passes; }

 private:
  struct Shard {
    coap_context_t* context = nullptr;
    CoapBatchedIo* io = nullptr;
    uint64_t passes = 0;
  };
  bool Pass(Shard& shard);

  int poll_fd_ = -1;
  std::vector<Shard> shards_;
  std::vector<epoll_event> ready_;
  std::vector<bool> chosen_;
};

}  // namespace edgeadmm::posix
