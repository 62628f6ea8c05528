// CoapClient: the SDK's own CoAP client (RFC 7252 messaging, RFC 7959
// block-wise transfers, RFC 7641 Observe) as a Transport over a
// DatagramLink, for boards without libcoap (issue 12). No heap: the caller
// gives the buffers; one request and one observation at a time.
//
//   - Confirmable requests, retransmitted after ack_timeout_ms x a random
//     factor in [1, 1.5), doubled each time, at most max_retransmit times
//     (RFC 7252 section 4.2); then DEADLINE_EXCEEDED. A Reset -> UNAVAILABLE.
//   - Piggybacked and separate responses (an empty ACK, then the response
//     as its own CON, which is acknowledged; duplicates are acknowledged
//     again and dropped).
//   - Block1 uploads of payloads longer than one block and Block2 downloads
//     of longer responses, one confirmable request per block.
//   - Observe: notifications (CON ones acknowledged) replace the last one;
//     of a notification larger than one block the client GETs the other
//     blocks (without Observe) before reporting it (RFC 7959 section 3.4);
//     a Block2 body whose ETag changes midway is fetched again from block 0
//     (section 2.4); StopObserve forgets the token and later notifications
//     are answered with a Reset (RFC 7641 3.6).
//   - Streaming (streams_bodies()): a request's body read block by block
//     from its BodySource as each datagram is built (again for a
//     retransmission), a 2.xx response's body handed block by block to its
//     BodySink (each block once, in order); a notification larger than the
//     notification buffer is reported at once with RESOURCE_EXHAUSTED
//     (without fetching its other blocks) and the observation goes on.
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/coap/coap_message.h"
#include "edgeadmm/coap/datagram_link.h"
#include "edgeadmm/transport.h"

namespace edgeadmm::coap {

// Header and options a datagram carries besides one block (the tx and rx
// buffers of CoapClientConfig hold at least CoapDatagramBytes(block)).
inline constexpr size_t kDatagramOverheadBytes = 64;
constexpr size_t CoapDatagramBytes(size_t block_bytes) {
  return block_bytes + kDatagramOverheadBytes;
}
// CoapClientConfig::block_szx of a block of 16..1024 bytes (a power of two);
// 7 (invalid) for any other size.
constexpr uint8_t BlockSzx(size_t block_bytes) {
  for (uint8_t szx = 0; szx <= 6; ++szx) {
    if (block_bytes == (size_t{16} << szx)) return szx;
  }
  return 7;
}

struct CoapClientConfig {
  DatagramLink* link = nullptr;
  // Monotonic milliseconds.
  uint64_t (*now_ms)() = nullptr;
  // One datagram each: what is sent and what is received (at least the
  // block size + 64 bytes of header and options).
  ByteSpan tx_buffer;
  ByteSpan rx_buffer;
  uint32_t ack_timeout_ms = 2000;  // ACK_TIMEOUT
  uint8_t max_retransmit = 4;      // MAX_RETRANSMIT
  uint8_t block_szx = 6;           // 1024-byte blocks
  // Seeds message ids, tokens and the retransmission jitter (not secret).
  uint32_t seed = 1;
  // An exchange (or an Observe registration not yet answered, or the GETs
  // of a notification's other blocks) that has heard nothing from the
  // server for this long, counted from its start or the last datagram
  // received other than a pushed notification (a heartbeat proves the
  // session, not the exchange), whichever is later, and not while the link is
  // connecting (DatagramLink::connecting), fails with DEADLINE_EXCEEDED before
  // its retransmissions run out; every other exchange fails with it and the
  // link's session is dropped (DatagramLink::Reset), so the next exchange
  // opens a new one. A server that restarted has forgotten the session and
  // drops its records without an answer: only a new handshake reaches it.
  // An answered observation that is quiet is left alone. 0: wait for the
  // retransmissions (MAX_TRANSMIT_WAIT, 93 s with the default ACK_TIMEOUT).
  uint32_t silence_timeout_ms = 0;
};

class CoapClient final : public Transport {
 public:
  explicit CoapClient(const CoapClientConfig& config);

  Status StartRequest(const TransportRequest& request,
                      ByteSpan response_buffer) override;
  bool TakeResult(TransportResult& result) override;
  void Cancel() override;
  Status StartObserve(const char* path, ByteSpan notification_buffer) override;
  bool TakeNotification(TransportResult& result) override;
  void StopObserve() override;
  // Abandons the request and the observation without a report and drops
  // the link's session (DatagramLink::Reset).
  void Reconnect() override;
  StatusWithSize Poll(uint32_t timeout_ms) override;
  bool streams_bodies() const override { return true; }

  // Datagrams sent again after a timeout (diagnostics, tests).
  uint32_t retransmissions() const { return retransmissions_; }

 private:
  struct Exchange {
    bool active = false;
    bool ready = false;
    bool observe = false;
    bool answered = false;  // Observe: a response or notification came
    uint64_t started_ms = 0;
    TransportResult result;
    const char* path = nullptr;
    CoapMethod method = CoapMethod::kGet;
    uint16_t content_format = 0;
    ConstByteSpan payload;
    BodySource* source = nullptr;  // replaces `payload` when set
    BodySink* sink = nullptr;      // takes a 2.xx body instead of `buffer`
    bool source_failed = false;    // the last Transmit's error is the source's
    ByteSpan buffer;
    uint32_t block1 = 0;  // block of the payload being sent
    uint32_t block2 = 0;  // block of the response asked for
    size_t received = 0;
    // Block2: the ETag of block 0 (0 bytes: none), checked on later blocks.
    uint8_t etag[8] = {};
    size_t etag_size = 0;
    // Observe: the registration's token (notifications carry it; `token`
    // is then that of the GET fetching a notification's other blocks).
    uint8_t observe_token[4] = {};
    bool fetching = false;
    // The confirmable message in flight.
    uint16_t mid = 0;
    uint8_t token[4] = {};
    bool awaiting_ack = false;
    uint8_t retransmits = 0;
    uint32_t timeout_ms = 0;
    uint64_t deadline_ms = 0;  // next retransmission, or the response's
  };

  static size_t BodySize(const Exchange& e);
  Status SendNew(Exchange& e);
  Status Transmit(Exchange& e);
  Status TakeBlock(Exchange& e, size_t offset, ConstByteSpan bytes,
                   bool to_sink);
  void Complete(Exchange& e, Status status);
  void Finish(Exchange& e, Status status);
  void HandleDatagram(size_t size);
  void HandleResponse(Exchange& e, const MessageView& m);
  void CheckTimers(uint64_t now);
  // True while `e` waits for the server (silence_timeout_ms applies).
  static bool AwaitsServer(const Exchange& e);
  // The time `e`'s silence is counted from.
  uint64_t SilentSince(const Exchange& e) const;
  // silence_timeout_ms: fails everything and resets the link when an
  // exchange waiting for the server heard nothing for that long.
  void CheckSilence(uint64_t now);
  void SendEmpty(MessageType type, uint16_t mid);
  bool SeenBefore(uint16_t mid);
  uint32_t Random();
  uint64_t NextDeadline() const;

  CoapClientConfig config_;
  Exchange request_;
  Exchange observe_;
  uint16_t next_mid_ = 0;
  uint32_t next_token_ = 0;
  uint32_t rng_ = 0;
  // Message ids of confirmable responses already handled (deduplication).
  uint16_t seen_[8] = {};
  size_t seen_count_ = 0;
  size_t seen_next_ = 0;
  uint32_t retransmissions_ = 0;
  uint64_t last_heard_ms_ = 0;  // the server's last datagram (or connecting)
};

}  // namespace edgeadmm::coap
