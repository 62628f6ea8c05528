// The transport of edgeadmm-device, one of the two device stacks
// (docs/architecture.md, "Two device transports"), chosen by --transport:
//   libcoap  libcoap + OpenSSL (platform/posix/coap), the default;
//   sdk      the SDK's own CoapClient over DtlsPskLink (Mbed TLS) over a UDP
//            socket: what the MCU runs, and the one that streams bodies
//            (a streaming admm-sharing party).
// Both get the same ACK_TIMEOUT and silence timeout.
#pragma once

#include <memory>

#include "device_options.h"
#include "edgeadmm/entropy_source.h"
#include "edgeadmm/span.h"
#include "edgeadmm/status.h"
#include "edgeadmm/transport.h"

namespace edgeadmm::device {

class DeviceTransport {
 public:
  DeviceTransport();
  ~DeviceTransport();
  DeviceTransport(const DeviceTransport&) = delete;
  DeviceTransport& operator=(const DeviceTransport&) = delete;

  // Opens the stack `o.transport` names, towards o.host:o.port with
  // identity o.identity and `key` (both must outlive this object).
  // UNIMPLEMENTED: `sdk` in a build without Mbed TLS's DTLS port; other
  // errors as the stack's (printed on stderr by the caller).
  Status Open(const DeviceOptions& o, ConstByteSpan key,
              EntropySource& entropy);
  Transport& get();

 private:
  struct Libcoap;
  struct Sdk;
  std::unique_ptr<Libcoap> libcoap_;
  std::unique_ptr<Sdk> sdk_;
};

}  // namespace edgeadmm::device
