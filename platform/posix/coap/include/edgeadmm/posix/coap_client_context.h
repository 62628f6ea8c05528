// CoapClientContext: one libcoap client context (event loop) shared by any
// number of CoapDtlsTransport sessions in one process.
//
// A fleet of virtual devices creates one context per N sessions (e.g. one per
// core, each driven by its own thread) and calls Poll() in its loop; a single
// device creates one context and lets its transport poll it. The context owns
// no global state beyond libcoap's one-time coap_startup().
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "edgeadmm/status.h"

struct coap_context_t;

namespace edgeadmm::posix {

class CoapBatchedIo;

class CoapClientContext {
 public:
  // Creates the libcoap context. Check status() before use.
  CoapClientContext();
  ~CoapClientContext();
  CoapClientContext(const CoapClientContext&) = delete;
  CoapClientContext& operator=(const CoapClientContext&) = delete;

  // OK, or UNAVAILABLE if libcoap could not create the context or has no
  // DTLS support.
  Status status() const { return status_; }

  // Waits up to `timeout_ms` (0: not at all) for I/O or a timer, then
  // handles every ready session in one batch (CoapBatchedIo: one libcoap
  // session walk per batch, not per datagram). Returns the milliseconds
  // spent, or UNAVAILABLE on an I/O error.
  StatusWithSize Poll(uint32_t timeout_ms);

  // Appends to `tags` the wake_tag (CoapDtlsConfig) of each transport that
  // libcoap handed something since the last call: a response, a
  // notification, a failure or a DTLS event, in order of arrival (a
  // transport may be listed more than once). A loop over many transports
  // polls just those, and the others when their own timers are due.
  // Transports without a tag are never listed.
  void TakeWoken(std::vector<size_t>& tags);

  // The libcoap context, for CoapDtlsTransport.
  coap_context_t* raw() const { return context_; }
  // Called by the context's libcoap handlers for a tagged transport.
  void NoteWoken(size_t tag) { woken_.push_back(tag); }

 private:
  coap_context_t* context_ = nullptr;
  std::vector<size_t> woken_;
  std::unique_ptr<CoapBatchedIo> io_;
  Status status_;
};

}  // namespace edgeadmm::posix
