// Float16ShareTransport: a Transport decorator for the fleet's devices that
// rounds every value of an admm-sharing upload (the noisy share, and the
// partial scores of a scoring phase) to the nearest IEEE float16 value before
// it is sent (`edgeadmm-fleet connect --share-float16`). It measures on the
// real stack what a float16 share encoding would do to the iteration (issue
// 15; docs/results.md "float16 shares"): the values are float16, the bytes
// stay the protocol's float32 (the wire format is unchanged, so the upload
// is not smaller). Rounding the released, already-noisy values is
// post-processing: the device's ε is unchanged (docs/privacy.md). Linux
// fleet tool only, not SDK code.
#pragma once

#include <cstddef>
#include <vector>

#include "edgeadmm/transport.h"

namespace edgeadmm::fleet {

// The float16 value nearest to `v` (ties to even), saturated at ±65,504
// (float16's largest finite value) instead of overflowing to ±inf; below
// 2^-14 on the subnormal grid 2^-24. Non-finite input is returned as is.
double RoundToFloat16(double v);

class Float16ShareTransport final : public Transport {
 public:
  // `inner` must outlive this decorator.
  explicit Float16ShareTransport(Transport& inner) : inner_(inner) {}

  // A POST of an update is decoded, its values rounded (RoundToFloat16) and
  // re-encoded into a buffer of this decorator; any other request, or an
  // update that does not decode, is forwarded unchanged. It does not stream
  // (streams_bodies() is false, whatever `inner` does): rounding needs the
  // whole update decoded, and the fleet's inner transport (libcoap) does
  // not stream either; a request with a payload_source or a response_sink
  // gets UNIMPLEMENTED.
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

 private:
  Transport& inner_;
  std::vector<std::byte> payload_;  // the rewritten update, while in flight
  size_t rewritten_ = 0;
};

}  // namespace edgeadmm::fleet
