// UdpLink: the SDK CoAP client's DatagramLink over an lwIP raw UDP pcb
// connected to one peer. Received datagrams wait as lwIP pbufs (from the
// PBUF_POOL, no copy) in a small queue; a full queue drops new ones, as a
// socket buffer would. Wait() polls the network (PollNetwork) until a
// datagram is queued or the timeout passes.
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/coap/datagram_link.h"

struct udp_pcb;
struct pbuf;
struct ip4_addr;  // ip_addr_t of an IPv4-only lwIP

namespace edgeadmm::lwip {

class UdpLink final : public coap::DatagramLink {
 public:
  UdpLink() = default;
  ~UdpLink();

  // Binds an ephemeral local port and connects to `address`:`port` (IPv4).
  // FAILED_PRECONDITION before StartNetwork(), RESOURCE_EXHAUSTED if no pcb
  // is free.
  Status Open(const uint8_t address[4], uint16_t port);
  void Close();

  Status Send(ConstByteSpan datagram) override;
  StatusWithSize Receive(ByteSpan buffer) override;
  void Wait(uint32_t timeout_ms) override;

  // Datagrams dropped because the queue was full.
  uint32_t dropped() const { return dropped_; }

 private:
  static constexpr size_t kQueueSize = 2;

  static void OnReceive(void* self, udp_pcb* pcb, pbuf* p, const ip4_addr* addr,
                        uint16_t port);
  void Enqueue(pbuf* p);

  udp_pcb* pcb_ = nullptr;
  pbuf* queue_[kQueueSize] = {};
  size_t head_ = 0;
  size_t count_ = 0;
  uint32_t dropped_ = 0;
};

}  // namespace edgeadmm::lwip
