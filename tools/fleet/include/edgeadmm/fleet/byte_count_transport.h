// ByteCountTransport: a Transport decorator for the fleet's devices that
// counts the CoAP bodies a device sends (request payloads) and receives
// (response bodies and Observe notifications), for the bytes-per-device
// figures of the secure-aggregation benchmark (scripts/secagg-benchmark).
// Bodies only: CoAP and DTLS headers, Block-wise options, retransmissions
// and handshakes are not in them. Linux fleet tool only, not SDK code.
#pragma once

#include <cstdint>

#include "edgeadmm/transport.h"

namespace edgeadmm::fleet {

class ByteCountTransport final : public Transport {
 public:
  // `inner` must outlive this decorator.
  explicit ByteCountTransport(Transport& inner) : inner_(inner) {}
  ~ByteCountTransport() = default;

  // Counts the payload of a request `inner` accepted.
  Status StartRequest(const TransportRequest& request,
                      ByteSpan response_buffer) override;
  // Counts the body of a response that arrived.
  bool TakeResult(TransportResult& result) override;
  void Cancel() override { inner_.Cancel(); }
  Status StartObserve(const char* path, ByteSpan notification_buffer) override {
    return inner_.StartObserve(path, notification_buffer);
  }
  // Counts the body of a notification that arrived.
  bool TakeNotification(TransportResult& result) override;
  void StopObserve() override { inner_.StopObserve(); }
  bool streams_bodies() const override { return inner_.streams_bodies(); }
  void Reconnect() override { inner_.Reconnect(); }
  StatusWithSize Poll(uint32_t timeout_ms) override {
    return inner_.Poll(timeout_ms);
  }

  uint64_t bytes_up() const { return up_; }
  uint64_t bytes_down() const { return down_; }

 private:
  Transport& inner_;
  uint64_t up_ = 0;
  uint64_t down_ = 0;
};

}  // namespace edgeadmm::fleet
