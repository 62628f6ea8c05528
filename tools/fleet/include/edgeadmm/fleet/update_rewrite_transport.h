// UpdateRewriteTransport: a Transport decorator for the fleet's devices that
// decodes every update a device POSTs, lets Rewrite change its values, and
// sends the re-encoded update in its place; any other request, or an update
// that does not decode, is forwarded unchanged. The base of the fleet's
// measurement decorators (float16_share_transport.h, steering_transport.h).
// It does not stream (streams_bodies() is false, whatever `inner` does):
// rewriting needs the whole update decoded, and the fleet's inner transport
// (libcoap) does not stream either; a request with a payload_source or a
// response_sink gets UNIMPLEMENTED. Linux fleet tool only, not SDK code.
#pragma once

#include <cstddef>
#include <vector>

#include "edgeadmm/transport.h"
#include "edgeadmm/wire/update.h"

namespace edgeadmm::fleet {

class UpdateRewriteTransport : public Transport {
 public:
  // `inner` must outlive this decorator.
  explicit UpdateRewriteTransport(Transport& inner) : inner_(inner) {}
  virtual ~UpdateRewriteTransport() = default;

  Status StartRequest(const TransportRequest& request,
                      ByteSpan response_buffer) override;
  bool TakeResult(TransportResult& result) override {
    return inner_.TakeResult(result);
  }
  void Cancel() override { inner_.Cancel(); }
  Status StartObserve(const char* path, ByteSpan notification_buffer) override {
    return inner_.StartObserve(path, notification_buffer);
  }
  bool TakeNotification(TransportResult& result) override {
    return inner_.TakeNotification(result);
  }
  void StopObserve() override { inner_.StopObserve(); }
  void Reconnect() override { inner_.Reconnect(); }
  StatusWithSize Poll(uint32_t timeout_ms) override {
    return inner_.Poll(timeout_ms);
  }

  // Updates rewritten so far (the run's check that the option took effect).
  size_t rewritten() const { return rewritten_; }

 protected:
  // Changes the values (not the length) of the decoded `update`.
  virtual void Rewrite(wire::DecodedUpdate& update) = 0;

 private:
  Transport& inner_;
  std::vector<std::byte> payload_;  // the rewritten update, while in flight
  size_t rewritten_ = 0;
};

}  // namespace edgeadmm::fleet
