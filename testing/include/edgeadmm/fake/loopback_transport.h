// LoopbackTransport: a Transport that delivers requests to an in-process
// CoapEndpoint over a simulated lossy datagram link (tests, fleet).
//
// Link model (confirmable CoAP, RFC 7252 section 4.2, and Block-wise,
// RFC 7959): a body larger than `block_size` is split into blocks, each block
// is one request/response round trip; every datagram is lost independently
// with probability loss_per_million / 1e6. A round trip is retried up to
// max_retransmit times; when all attempts fail the exchange reports
// DEADLINE_EXCEEDED. The endpoint handles a request once, when its last
// block first arrives; retransmissions after a lost response are answered
// from the "message-id cache" (so the endpoint may have acted although the
// client saw a timeout: the case idempotent uploads exist for). Time is not
// simulated: each Poll() completes the exchange in flight and sends pending
// notifications. Observe: the registration is an exchange like a GET; later
// notifications are confirmable, and an observation whose notification is
// never acknowledged is dropped by the server side (the client is not told).
//
// The loss stream comes from a 64-bit LCG/xorshift seeded by `seed` and the
// identity: a test link, never a source of privacy noise. No heap.
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/fake/coap_endpoint.h"
#include "edgeadmm/transport.h"

namespace edgeadmm {

struct LinkConfig {
  uint32_t loss_per_million = 0;  // probability of losing each datagram
  uint64_t seed = 1;
  uint8_t max_retransmit = 4;  // retransmissions after the first attempt
  size_t block_size = 1024;    // Block1/Block2 size (SZX 6)
};

// Datagram counts and sizes (CoAP over DTLS 1.2 with AES-128-CCM-8: the size
// of each datagram is the CoAP header, token, options and payload plus a
// 29-byte DTLS record overhead; an estimate, see docs/device.md).
struct LinkStats {
  uint64_t exchanges = 0;         // requests started (incl. registrations)
  uint64_t exchanges_failed = 0;  // DEADLINE_EXCEEDED
  uint64_t datagrams = 0;         // sent in both directions
  uint64_t datagrams_lost = 0;
  uint64_t bytes = 0;          // of all datagrams sent
  uint64_t handled = 0;        // requests the endpoint handled
  uint64_t notifications = 0;  // notifications delivered
};

class LoopbackTransport final : public Transport {
 public:
  // `endpoint` and `identity` must outlive the transport.
  LoopbackTransport(CoapEndpoint& endpoint, const char* identity,
                    const LinkConfig& link);

  Status StartRequest(const TransportRequest& request,
                      ByteSpan response_buffer) override;
  bool TakeResult(TransportResult& result) override;
  void Cancel() override;
  Status StartObserve(const char* path, ByteSpan notification_buffer) override;
  bool TakeNotification(TransportResult& result) override;
  void StopObserve() override;
  // Completes the exchange in flight and the pending notification; returns
  // 0 ms (no simulated time).
  StatusWithSize Poll(uint32_t timeout_ms) override;

  // Streaming (tests of streaming clients, transport.h): requests may use a
  // BodySource / BodySink. Their bodies are staged whole in `staging` (the
  // test's memory, not the device's) and read from the source / written to
  // the sink a block at a time. Empty: streams_bodies() is false.
  void EnableStreaming(ByteSpan staging) { staging_ = staging; }
  bool streams_bodies() const override { return !staging_.empty(); }

  // Forgets everything (a device reboot): exchange, observation, and the
  // server side's observer entry.
  void Reset();
  // Changes the loss probability (e.g. a link that gets worse).
  void set_loss_per_million(uint32_t loss) { link_.loss_per_million = loss; }
  const LinkStats& stats() const { return stats_; }

 private:
  // Sends one datagram of `bytes` bytes; false if it was lost.
  bool SendDatagram(size_t bytes);
  // One confirmable round trip: request and response datagrams, retried.
  // `on_arrival` runs at the first arrival of the request and returns the
  // response datagram's size. False when every attempt failed.
  template <typename F>
  bool RoundTrip(size_t request_bytes, F on_arrival);
  // Runs a whole exchange (all blocks; a streamed body staged); fills
  // `result`.
  void RunExchange(const TransportRequest& request, ByteSpan buffer,
                   TransportResult& result);
  // The exchange's round trips, with the request body whole.
  void RunBlocks(const TransportRequest& request, ByteSpan buffer,
                 TransportResult& result);
  uint64_t NextRandom();

  CoapEndpoint& endpoint_;
  const char* identity_;
  ByteSpan staging_;
  LinkConfig link_;
  uint64_t rng_;
  LinkStats stats_;

  TransportRequest request_;
  ByteSpan request_buffer_;
  bool request_started_ = false;
  bool request_ready_ = false;
  TransportResult request_result_;

  const char* observe_path_ = nullptr;
  ByteSpan observe_buffer_;
  bool observe_registering_ = false;  // registration exchange not yet run
  bool observe_active_ = false;       // client side: observing
  bool server_observing_ = false;     // server side: has us as an observer
  uint64_t observed_version_ = 0;
  bool notification_ready_ = false;
  TransportResult notification_;
};

}  // namespace edgeadmm
