// CoapBatchedIo: runs a libcoap 4.3.1 context's network I/O in batches, with
// one pass of libcoap's session walk per batch instead of one per datagram.
//
// Why: coap_io_process() calls coap_io_prepare_io() before every epoll_wait
// and coap_io_do_epoll() calls it again after every batch of ready sockets.
// That function walks every session of the context (idle timeouts, DTLS and
// block-wise timers), and a server endpoint yields one datagram per epoll
// event, so a daemon with N open sessions paid O(N) per datagram: with 8,000
// devices the walk took ~60% of the daemon's CPU (perf) and handshakes timed
// out faster than it answered (docs/results.md, a9a one record per device).
//
// Here one coap_io_do_epoll() call gets every ready socket (up to
// `max_events`), and each ready server endpoint is listed up to
// `max_endpoint_reads` times (one datagram per entry), so the walk that ends
// the call is shared by the whole batch. libcoap's timers keep working: its
// timer fd is one of the epoll sources and the walk re-arms it.
//
// libcoap arms that timer fd for what it schedules itself (a confirmable
// message's retransmission, an Observe notification, the next DTLS or idle
// timeout found by a walk), so a context whose descriptor (epoll_fd()) is
// not readable needs no pass until its walk is due (WalkDue): CoapShardSet
// runs only the ready and due contexts of several.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

struct coap_context_t;
struct epoll_event;

namespace edgeadmm::posix {

struct CoapBatchedIoOptions {
  // Ready sockets taken from epoll per batch.
  size_t max_events = 256;
  // Upper bound of datagrams read per ready server endpoint per batch
  // (adaptive: doubled while the endpoint still has data after a batch,
  // halved when a batch drained it or a call found nothing). 1 for a client
  // context, whose sessions each have their own socket (an epoll event per
  // socket).
  size_t max_endpoint_reads = 1;
  // A call that starts this long after the last walk walks first, so
  // timers of sessions the owner created or changed between calls are
  // armed (0: walk at the start of every call, as coap_io_process does).
  int64_t walk_interval_ms = 20;
};

class CoapBatchedIo {
 public:
  // `context` must outlive this object.
  CoapBatchedIo(coap_context_t* context, const CoapBatchedIoOptions& options);
  ~CoapBatchedIo();
  CoapBatchedIo(const CoapBatchedIo&) = delete;
  CoapBatchedIo& operator=(const CoapBatchedIo&) = delete;

  // Waits up to `timeout_ms` (0: not at all) for a ready socket or libcoap
  // timer, then handles everything ready in one batch. Returns the
  // milliseconds spent, or -1 on an epoll error. Without epoll support in
  // libcoap it is coap_io_process().
  int Process(uint32_t timeout_ms);

  // Whether the next Process walks first: never walked, RequestWalk() since
  // the last walk, or walk_interval_ms elapsed at monotonic `now_ms`. The
  // milliseconds until then (0: due).
  int64_t MsUntilWalk(int64_t now_ms) const;
  // The next Process walks first (after the owner changed sessions outside
  // libcoap's I/O, e.g. disconnected one that the walk then frees).
  void RequestWalk() { primed_ = false; }
  // libcoap's epoll descriptor of the context (-1 without epoll support):
  // readable when a socket of the context is or its timer fd expired.
  int epoll_fd() const { return epoll_fd_; }

  // Batches run (each one libcoap walk) and epoll events handled, for tests
  // and diagnostics.
  uint64_t batches() const { return batches_; }
  uint64_t events() const { return events_; }
  // libcoap walks run (the batches' and those at the start of a call).
  uint64_t walks() const { return walks_; }
  // The current datagram count per ready endpoint.
  size_t endpoint_reads() const { return endpoint_reads_; }

 private:
  coap_context_t* context_;
  CoapBatchedIoOptions options_;
  int epoll_fd_ = -1;
  bool primed_ = false;  // libcoap's timer fd armed by a first walk
  int64_t last_walk_ms_ = 0;
  size_t endpoint_reads_ = 1;
  std::vector<epoll_event> ready_;
  std::vector<epoll_event> batch_;
  uint64_t batches_ = 0;
  uint64_t events_ = 0;
  uint64_t walks_ = 0;
};

}  // namespace edgeadmm::posix
