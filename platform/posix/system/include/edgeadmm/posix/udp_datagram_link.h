// UdpDatagramLink: the SDK CoAP client's DatagramLink over a connected
// POSIX UDP socket (one peer).
#pragma once

#include <cstdint>

#include "edgeadmm/coap/datagram_link.h"

namespace edgeadmm::posix {

class UdpDatagramLink final : public coap::DatagramLink {
 public:
  UdpDatagramLink() = default;
  ~UdpDatagramLink();

  // Connects to numeric IPv4/IPv6 `host`:`port`. INVALID_ARGUMENT for a bad
  // address, UNAVAILABLE if no socket.
  Status Open(const char* host, uint16_t port);
  void Close();

  Status Send(ConstByteSpan datagram) override;
  StatusWithSize Receive(ByteSpan buffer) override;
  void Wait(uint32_t timeout_ms) override;

 private:
  int fd_ = -1;
};

}  // namespace edgeadmm::posix
