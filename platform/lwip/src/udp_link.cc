#include "edgeadmm/lwip/udp_link.h"

#include "edgeadmm/lwip/network.h"
#include "lwip/ip4_addr.h"
#include "lwip/pbuf.h"
#include "lwip/udp.h"

namespace edgeadmm::lwip {

UdpLink::~UdpLink() { Close(); }

Status UdpLink::Open(const uint8_t address[4], uint16_t port) {
  Close();
  if (!NetworkStarted()) return Status::FailedPrecondition();
  pcb_ = udp_new();
  if (pcb_ == nullptr) return Status::ResourceExhausted();
  ip4_addr_t peer;
  IP4_ADDR(&peer, address[0], address[1], address[2], address[3]);
  if (udp_bind(pcb_, IP4_ADDR_ANY, 0) != ERR_OK ||
      udp_connect(pcb_, &peer, port) != ERR_OK) {
    Close();
    return Status::Unavailable();
  }
  udp_recv(pcb_, &UdpLink::OnReceive, this);
  return Status::Ok();
}

void UdpLink::Close() {
  if (pcb_ != nullptr) udp_remove(pcb_);
  pcb_ = nullptr;
  while (count_ > 0) {
    pbuf_free(queue_[head_]);
    head_ = (head_ + 1) % kQueueSize;
    --count_;
  }
}

void UdpLink::OnReceive(void* self, udp_pcb*, pbuf* p, const ip4_addr*,
                        uint16_t) {
  static_cast<UdpLink*>(self)->Enqueue(p);
}

void UdpLink::Enqueue(pbuf* p) {
  if (count_ == kQueueSize) {
    ++dropped_;
    pbuf_free(p);
    return;
  }
  queue_[(head_ + count_) % kQueueSize] = p;
  ++count_;
}

Status UdpLink::Send(ConstByteSpan datagram) {
  if (pcb_ == nullptr) return Status::Unavailable();
  if (datagram.size() > 0xFFFF) return Status::InvalidArgument();
  const auto size = static_cast<u16_t>(datagram.size());
  pbuf* p = pbuf_alloc(PBUF_TRANSPORT, size, PBUF_RAM);
  if (p == nullptr) return Status::Unavailable();
  const err_t copied = pbuf_take(p, datagram.data(), size);
  const err_t sent = copied == ERR_OK ? udp_send(pcb_, p) : copied;
  pbuf_free(p);
  return sent == ERR_OK ? Status::Ok() : Status::Unavailable();
}

StatusWithSize UdpLink::Receive(ByteSpan buffer) {
  if (pcb_ == nullptr) return StatusWithSize(Status::Unavailable(), 0);
  PollNetwork();
  if (count_ == 0) return StatusWithSize(0);
  pbuf* p = queue_[head_];
  head_ = (head_ + 1) % kQueueSize;
  --count_;
  const size_t size = buffer.size() < p->tot_len ? buffer.size() : p->tot_len;
  const u16_t copied =
      pbuf_copy_partial(p, buffer.data(), static_cast<u16_t>(size), 0);
  pbuf_free(p);
  return StatusWithSize(copied);
}

void UdpLink::Wait(uint32_t timeout_ms) {
  if (pcb_ == nullptr) return;
  const uint64_t deadline = NetworkNowMs() + timeout_ms;
  for (;;) {
    PollNetwork();
    if (count_ > 0 || NetworkNowMs() >= deadline) return;
  }
}

}  // namespace edgeadmm::lwip
