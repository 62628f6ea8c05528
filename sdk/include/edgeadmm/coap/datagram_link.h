// DatagramLink: the port under the SDK's own CoAP client — one peer, whole
// datagrams, non-blocking. A board implements it over its network stack (a
// UDP socket, a DTLS session); POSIX has one over a UDP socket
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
  // Drops the session with the peer, if the link keeps one (a DTLS
  // session): the next Send starts a new one. A plain datagram link has
  // nothing to drop.
  virtual void Reset() {}
  // True while the link is setting up a session (a DTLS handshake): the
  // peer's datagrams are then the link's own, not the client's, so the
  // client's silence clock (CoapClientConfig::silence_timeout_ms) waits.
  virtual bool connecting() const { return false; }

 protected:
  DatagramLink() = default;
  ~DatagramLink() = default;
};

}  // namespace edgeadmm::coap
