// CoapEndpoint: the server side of LoopbackTransport, an in-process stand-in
// for a CoAP server (tests and the fleet simulator; see FakeAggregator).
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/span.h"
#include "edgeadmm/status.h"
#include "edgeadmm/transport.h"

namespace edgeadmm {

// What a handler answers: a CoAP response code and a body written to the
// caller's buffer.
struct CoapResponse {
  // OK, or RESOURCE_EXHAUSTED when the body does not fit the buffer (the
  // client then sees RESOURCE_EXHAUSTED, as with an oversized Block2 body).
  Status status;
  uint8_t code = 0;  // class * 32 + detail
  uint16_t content_format = TransportResult::kNoContentFormat;
  size_t size = 0;
};

class CoapEndpoint {
 public:
  // Handles one request of the device whose DTLS identity is `identity`,
  // writing the response body into `out`. Called once per exchange, like a
  // CoAP server that answers retransmissions from its message-id cache.
  virtual CoapResponse Handle(const char* identity,
                              const TransportRequest& request,
                              ByteSpan out) = 0;

  // A number that changes whenever the representation of `path` for
  // `identity` changes; Observe notifications are sent when it does.
  virtual uint64_t ResourceVersion(const char* identity, const char* path) = 0;

 protected:
  ~CoapEndpoint() = default;
};

}  // namespace edgeadmm
