// CoapClientContext: the libcoap client event loop shared by any number of
// CoapDtlsTransport sessions in one process.
//
// A single device makes one and lets its transport poll it. A fleet of
// virtual devices makes one per thread and calls Poll() in its loop; with
// thousands of sessions it asks for several shards: libcoap 4.3.1 walks
// every session of a context after each batch of datagrams (timers) and
// again for each new client session (its duplicate check), so one context
// of 2,036 sessions cost a fleet process more CPU during a start than the
// handshakes themselves (docs/results.md, "The fleet's own walks"). With
// K shards there are K libcoap contexts, new sessions go to them in turn,
// and Poll runs only the ready ones (CoapShardSet), so each walk covers
// about sessions / K. Owns no global state beyond libcoap's one-time
// coap_startup().
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "edgeadmm/status.h"

struct coap_context_t;

namespace edgeadmm::posix {

class CoapBatchedIo;
class CoapShardSet;

class CoapClientContext {
 public:
  // Sessions per shard that ShardsFor aims at.
  static constexpr size_t kSessionsPerShard = 32;
  // The shards for `sessions` sessions at once: one per kSessionsPerShard.
  static size_t ShardsFor(size_t sessions) {
    return sessions / kSessionsPerShard + 1;
  }

  // Creates `shards` libcoap contexts (at least one). Check status()
  // before use.
  explicit CoapClientContext(size_t shards = 1);
  ~CoapClientContext();
  CoapClientContext(const CoapClientContext&) = delete;
  CoapClientContext& operator=(const CoapClientContext&) = delete;

  // OK, or UNAVAILABLE if libcoap could not create a context or has no
  // DTLS support.
  Status status() const { return status_; }

  // Waits up to `timeout_ms` (0: not at all) for I/O or a timer, then
  // handles every ready session in one batch per ready shard
  // (CoapBatchedIo: one libcoap session walk per batch, not per datagram).
  // Returns the milliseconds spent, or UNAVAILABLE on an I/O error.
  StatusWithSize Poll(uint32_t timeout_ms);

  // Appends to `tags` the wake_tag (CoapDtlsConfig) of each transport that
  // libcoap handed something since the last call: a response, a
  // notification, a failure or a DTLS event, in order of arrival (a
  // transport may be listed more than once). A loop over many transports
  // polls just those, and the others when their own timers are due.
  // Transports without a tag are never listed.
  void TakeWoken(std::vector<size_t>& tags);

  // The libcoap context for CoapDtlsTransport's next session: the shards
  // in turn (the shard walks at its next pass, which arms the session's
  // handshake timer). Null unless status() is OK.
  coap_context_t* NextSessionContext();
  size_t shards() const { return shards_.size(); }
  // Called by the context's libcoap handlers for a tagged transport.
  void NoteWoken(size_t tag) { woken_.push_back(tag); }

 private:
  struct Shard {
    coap_context_t* context = nullptr;
    std::unique_ptr<CoapBatchedIo> io;
  };
  std::vector<Shard> shards_;
  size_t next_shard_ = 0;
  // Runs the ready shards' passes when there are several.
  std::unique_ptr<CoapShardSet> ready_shards_;
  std::vector<size_t> woken_;
  Status status_;
};

}  // namespace edgeadmm::posix
