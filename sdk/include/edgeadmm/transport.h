// Transport: the port through which the SDK client talks CoAP to the
// aggregator (docs/protocol.md). A platform implements it once: over libcoap
// with DTLS-PSK on POSIX (platform/posix/coap), over the SDK's own codec on a
// microcontroller, in memory in tests (testing/).
//
// The interface is non-blocking so that one process can drive thousands of
// transports from one event loop (the device fleet): StartRequest() queues
// one exchange, Poll() drives I/O, TakeResult() reports the outcome once.
// Request() is the blocking convenience for a single device. Every buffer is
// the caller's; an implementation allocates nothing per request on a device.
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/span.h"
#include "edgeadmm/status.h"

namespace edgeadmm {

// CoAP request methods (RFC 7252 section 12.1.1 numbering).
enum class CoapMethod : uint8_t { kGet = 1, kPost = 2, kPut = 3, kDelete = 4 };

// A request body produced block by block (Block1) instead of held whole in
// memory: a device streams an upload larger than its RAM (admm-sharing's
// share, docs/sdk.md "Streaming party"). The transport asks for each block
// when it sends it, and again for a retransmission or a restarted upload, so
// Read must give the same bytes for the same range every time.
class BodySource {
 public:
  // Total body bytes (fixed for the exchange).
  virtual size_t size() const = 0;
  // Writes bytes [offset, offset + out.size()) of the body into `out`
  // (offset + out.size() <= size()). A non-OK status aborts the exchange,
  // which then reports that status.
  virtual Status Read(size_t offset, ByteSpan out) = 0;

 protected:
  ~BodySource() = default;
};

// A response body consumed block by block (Block2) instead of reassembled in
// a buffer: a device streams a task larger than its RAM.
class BodySink {
 public:
  // Bytes [offset, offset + bytes.size()) of a success (2.xx) response body,
  // in order and without gaps, starting at 0. Offset 0 again means the body
  // restarted (its ETag changed midway, RFC 7959 section 2.4): everything
  // taken so far must be discarded. A non-OK status stops the exchange,
  // which then reports that status (a sink that has read enough returns
  // CANCELLED). A body of 0 bytes is not written.
  virtual Status Write(size_t offset, ConstByteSpan bytes) = 0;

 protected:
  ~BodySink() = default;
};

// One CoAP request. The path and payload must stay valid until the exchange
// finishes or is cancelled (a Block1 upload reads the payload while sending).
struct TransportRequest {
  CoapMethod method = CoapMethod::kGet;
  // Uri-Path segments joined by '/', no leading slash, e.g. "v1/task".
  const char* path = "";
  // Content-Format of `payload`; ignored when the payload is empty.
  uint16_t content_format = 0;
  // The body; sent Block-wise (Block1) when it does not fit one datagram.
  ConstByteSpan payload;
  // Streaming (transports whose streams_bodies() is true; others refuse a
  // request using either with UNIMPLEMENTED). A non-null `payload_source`
  // replaces `payload` (which must then be empty). A non-null
  // `response_sink` takes the body of a success (2.xx) response, and
  // TransportResult::payload_size counts the bytes it took; the body of any
  // other response still goes to the response buffer. Both must stay valid
  // like the payload.
  BodySource* payload_source = nullptr;
  BodySink* response_sink = nullptr;
};

// The outcome of an exchange or an Observe notification.
struct TransportResult {
  // OK when a CoAP response arrived (whatever its code). Otherwise:
  // UNAUTHENTICATED (DTLS handshake failed: wrong PSK, unknown identity),
  // DEADLINE_EXCEEDED (no answer after the confirmable retransmissions or the
  // caller's timeout), UNAVAILABLE (reset, ICMP unreachable, socket error),
  // RESOURCE_EXHAUSTED (response body larger than the caller's buffer),
  // CANCELLED (the exchange was cancelled).
  Status status;
  // CoAP response code, class * 32 + detail (edgeadmm/wire/coap_code.h).
  uint8_t code = 0;
  // Content-Format of the body, kNoContentFormat if absent.
  uint16_t content_format = 0;
  // Bytes of the body (reassembled from Block2) written to the buffer.
  size_t payload_size = 0;

  static constexpr uint16_t kNoContentFormat = 0xffff;
};

class Transport {
 public:
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

  // Starts one exchange; the response body will be written into
  // `response_buffer`, which must stay valid until TakeResult() reports the
  // outcome or Cancel() is called. Connects (DTLS handshake) first if needed.
  // Returns OK, FAILED_PRECONDITION (an exchange is already in flight),
  // INVALID_ARGUMENT (bad path), UNAVAILABLE (cannot open a session) or
  // RESOURCE_EXHAUSTED (no memory for the request).
  virtual Status StartRequest(const TransportRequest& request,
                              ByteSpan response_buffer) = 0;

  // Returns true exactly once per started exchange, when it has finished,
  // and fills `result`. Never blocks and performs no I/O.
  virtual bool TakeResult(TransportResult& result) = 0;

  // Abandons the exchange in flight, if any; TakeResult() will not report it.
  virtual void Cancel() = 0;

  // Registers for notifications of `path` (GET with Observe, RFC 7641).
  // Each notification body replaces the previous one in
  // `notification_buffer`, whole: of a notification larger than one block
  // the transport GETs the other blocks (RFC 7959 section 3.4) before
  // reporting it, as it reassembles a Block2 response. Returns OK,
  // FAILED_PRECONDITION (already observing), INVALID_ARGUMENT, UNAVAILABLE
  // or RESOURCE_EXHAUSTED.
  virtual Status StartObserve(const char* path,
                              ByteSpan notification_buffer) = 0;

  // Returns true when a notification (or the end of the observation, with a
  // non-OK status) arrived since the last call, and fills `result`.
  virtual bool TakeNotification(TransportResult& result) = 0;

  // Deregisters the observation, if any.
  virtual void StopObserve() = 0;

  // True if StartRequest takes TransportRequest::payload_source and
  // response_sink. A transport that streams also reports a notification
  // larger than its notification buffer as soon as it knows (without
  // fetching the rest) with RESOURCE_EXHAUSTED, and keeps the observation:
  // a streaming client takes it as "a new task" and GETs it into a sink.
  virtual bool streams_bodies() const { return false; }

  // Drops the session with the server, if the transport keeps one, so that
  // the next exchange or registration opens a new one (a new DTLS
  // handshake); an exchange or observation in flight is abandoned without a
  // report. The client calls it when the server has been silent long enough
  // that it may have forgotten the session (it restarted): records of a
  // session the server no longer knows are dropped without an answer, so
  // an exchange on it would only fail after all its retransmissions.
  // Transports without sessions have nothing to drop.
  virtual void Reconnect() {}

  // Drives the I/O (for a shared event loop: of all its transports) for at
  // most `timeout_ms` (0: do not wait). Returns the milliseconds spent, or
  // UNAVAILABLE on an I/O error.
  virtual StatusWithSize Poll(uint32_t timeout_ms) = 0;

  // Blocking exchange: StartRequest(), then Poll() until the result arrives
  // or `timeout_ms` passed (then the exchange is cancelled and `result` has
  // DEADLINE_EXCEEDED). Returns result.status, or StartRequest()'s error.
  Status Request(const TransportRequest& request, ByteSpan response_buffer,
                 uint32_t timeout_ms, TransportResult& result);

 protected:
  Transport() = default;
  ~Transport() = default;
};

}  // namespace edgeadmm
