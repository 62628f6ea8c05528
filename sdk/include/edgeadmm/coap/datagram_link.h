// DatagramLink: the port under the SDK's own CoAP client — one peer, whole
// datagrams, non-blocking. A board implements it over its network stack (a
// UDP socket, later a DTLS session); POSIX has one over a UDP socket
// (platform/posix/system, udp_datagram_link.h).
#pragma once

#include <cstdint>

#include "edgeadmm/span.h"
#include "edgeadmm/status.h"

namespace edgeadmm::coap {

class DatagramLink {
 public:
  DatagramLink(const DatagramLink&) = delete;
  DatagramLink& operator=(const DatagramLink&) = delete;

  // Sends one datagram to the peer. UNAVAILABLE if the link is down.
  virtual Status Send(ConstByteSpan datagram) = 0;
  // Takes one waiting datagram into `buffer` (its size; a longer datagram
  // is cut), or size 0 if none is waiting. UNAVAILABLE on a link error
  // (e.g. ICMP port unreachable).
  virtual StatusWithSize Receive(ByteSpan buffer) = 0;
  // Waits up to `timeout_ms` until a datagram may be waiting (it may also
  // return early for nothing).
  virtual void Wait(uint32_t timeout_ms) = 0;

 protected:
  DatagramLink() = default;
  ~DatagramLink() = default;
};

}  // namespace edgeadmm::coap
