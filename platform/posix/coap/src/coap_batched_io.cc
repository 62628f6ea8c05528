#include "edgeadmm/posix/coap_batched_io.h"

#include <coap3/coap.h>
#include <sys/epoll.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <mutex>

#include "edgeadmm/posix/monotonic_clock.h"

namespace edgeadmm::posix {
namespace {

// An endpoint listed more often than it holds datagrams makes libcoap log
// two warnings per empty read ("coap_network_read: Resource temporarily
// unavailable", "read failed"). They are expected here, so warnings are
// muted while such a batch runs (debug logging stays as it was). libcoap's
// log level is one per process and contexts may run on several threads
// (CoapShardSet): the first batch to mute saves the level, the last one to
// end restores it.
class QuietEmptyReads {
 public:
  explicit QuietEmptyReads(bool active) : active_(active) {
    if (!active_) return;
    const std::lock_guard<std::mutex> lock(mutex_);
    if (quiet_batches_++ > 0) return;
    saved_ = coap_get_log_level();
    if (saved_ >= LOG_WARNING && saved_ < LOG_DEBUG) {
      coap_set_log_level(LOG_ERR);
    }
  }
  ~QuietEmptyReads() {
    if (!active_) return;
    const std::lock_guard<std::mutex> lock(mutex_);
    if (--quiet_batches_ == 0) coap_set_log_level(saved_);
  }

 private:
  bool active_;
  static inline std::mutex mutex_;
  static inline int quiet_batches_ = 0;
  static inline coap_log_t saved_ = LOG_WARNING;
};

}  // namespace

CoapBatchedIo::CoapBatchedIo(coap_context_t* context,
                             const CoapBatchedIoOptions& options)
    : context_(context), options_(options) {
  options_.max_events = std::max<size_t>(1, options_.max_events);
  options_.max_endpoint_reads =
      std::max<size_t>(1, options_.max_endpoint_reads);
  epoll_fd_ = context_ == nullptr ? -1 : coap_context_get_coap_fd(context_);
  ready_.resize(options_.max_events);
}

CoapBatchedIo::~CoapBatchedIo() = default;

int CoapBatchedIo::Process(uint32_t timeout_ms) {
  if (context_ == nullptr) return -1;
  if (epoll_fd_ < 0) {  // libcoap without epoll: its own loop
    return coap_io_process(context_,
                           timeout_ms == 0 ? COAP_IO_NO_WAIT : timeout_ms);
  }
  const int64_t start = static_cast<int64_t>(MonotonicMs());
  if (!primed_ || start - last_walk_ms_ >= options_.walk_interval_ms) {
    // The walk arms libcoap's timer fd for its next timeout. Every batch
    // ends with one, but what the owner did between calls (a new client
    // session and its DTLS handshake timer, a request queued behind a
    // handshake) is only seen by a walk, so one runs at least every
    // walk_interval_ms (libcoap's own loop walks before every wait).
    coap_tick_t now;
    coap_ticks(&now);
    const unsigned next = coap_io_prepare_epoll(context_, now);
    if (next > 0) timeout_ms = std::min<uint32_t>(timeout_ms, next);
    primed_ = true;
    last_walk_ms_ = start;
    ++walks_;
  }
  const int capacity = static_cast<int>(ready_.size());
  // Probe first: still-ready endpoints mean the last batch did not drain
  // them, so read more per endpoint; an idle probe halves the count.
  int n = epoll_wait(epoll_fd_, ready_.data(), capacity, 0);
  if (n == 0) {
    endpoint_reads_ = std::max<size_t>(1, endpoint_reads_ / 2);
    if (timeout_ms > 0) {
      n = epoll_wait(
          epoll_fd_, ready_.data(), capacity,
          static_cast<int>(std::min<uint32_t>(timeout_ms, 1u << 30)));
    }
  } else if (n > 0 && options_.max_endpoint_reads > 1) {
    endpoint_reads_ =
        std::min(options_.max_endpoint_reads, endpoint_reads_ * 2);
  }
  if (n < 0) return errno == EINTR ? 0 : -1;
  if (n == 0)
    return static_cast<int>(static_cast<int64_t>(MonotonicMs()) - start);
  // Every non-null event of a context with max_endpoint_reads > 1 is a
  // server endpoint (null: libcoap's timer fd).
  const size_t repeat =
      options_.max_endpoint_reads > 1 ? endpoint_reads_ : size_t{1};
  batch_.clear();
  for (int i = 0; i < n; ++i) {
    const size_t copies = ready_[i].data.ptr == nullptr ? 1 : repeat;
    batch_.insert(batch_.end(), copies, ready_[i]);
  }
  {
    const QuietEmptyReads quiet(repeat > 1);
    coap_io_do_epoll(context_, batch_.data(), batch_.size());
  }
  last_walk_ms_ =
      static_cast<int64_t>(MonotonicMs());  // coap_io_do_epoll ends with a walk
  if (repeat > 1 && epoll_wait(epoll_fd_, ready_.data(), 1, 0) == 0) {
    // Drained: halve now, since a context run only when it is ready (a
    // CoapShardSet shard) is never probed idle.
    endpoint_reads_ = std::max<size_t>(1, endpoint_reads_ / 2);
  }
  ++batches_;
  ++walks_;
  events_ += static_cast<uint64_t>(n);
  return static_cast<int>(static_cast<int64_t>(MonotonicMs()) - start);
}

int64_t CoapBatchedIo::MsUntilWalk(int64_t now_ms) const {
  if (!primed_ || epoll_fd_ < 0) return 0;
  return std::max<int64_t>(0,
                           last_walk_ms_ + options_.walk_interval_ms - now_ms);
}

}  // namespace edgeadmm::posix
