// CoapDtlsTransport: the Transport port over libcoap 4.3.1 as a CoAP client
// with DTLS 1.2 PSK (identity = device id), confirmable retransmission,
// Block1 uploads, Block2 downloads and Observe.
//
// One object per device. The DTLS session is opened lazily by the first
// request and kept until Close() (or destruction), so a fleet can drop idle
// sessions between rounds, or until an exchange fails (any failure, also no
// answer: the next exchange handshakes again, docs/protocol.md). The object
// itself is small (no buffers: bodies go straight into the caller's spans).
// Handshake failures are mapped here: wrong PSK or unknown identity ->
// UNAUTHENTICATED.
#pragma once

#include <netinet/in.h>

#include <cstddef>
#include <cstdint>

#include "edgeadmm/posix/coap_client_context.h"
#include "edgeadmm/posix/local_port_pool.h"
#include "edgeadmm/posix/session_ends.h"
#include "edgeadmm/span.h"
#include "edgeadmm/status.h"
#include "edgeadmm/transport.h"

struct coap_session_t;
struct coap_pdu_t;

namespace edgeadmm::posix {

struct CoapDtlsConfig {
  // Aggregator address: a numeric IPv4 or IPv6 literal (no DNS lookups).
  const char* host = "127.0.0.1";
  uint16_t port = 5684;
  // DTLS PSK identity (the device id, 1..64 printable ASCII) and key.
  const char* identity = "";
  ConstByteSpan key;
  // CoAP ACK_TIMEOUT in milliseconds (RFC 7252 default 2000; libcoap 4.3.1
  // ignores values below 1000) and MAX_RETRANSMIT (default 4).
  uint32_t ack_timeout_ms = 2000;
  uint8_t max_retransmit = 4;
  // A DTLS handshake that has not completed after this long fails the
  // exchange: UNAUTHENTICATED if the server answered our key exchange but
  // never accepted it (wrong PSK or unknown identity: DTLS drops records it
  // cannot authenticate silently, so there is no alert to wait for),
  // DEADLINE_EXCEEDED if the server never answered at all.
  uint32_t handshake_timeout_ms = 5000;
  // An exchange (or Observe registration) on an established session that
  // has heard no answer from the server for this long fails with
  // DEADLINE_EXCEEDED and drops the session, before the retransmissions
  // run out (MAX_TRANSMIT_WAIT: 93 s with the default ACK_TIMEOUT): a server
  // that restarted has forgotten the session and drops its records without
  // an answer, so only a new handshake reaches it. Any answer to one of our
  // exchanges (a response, a Block1 Continue, a registration's answer, a
  // Block2 block) counts, so a slow transfer that makes progress is not cut;
  // a notification the server pushed does not: the gateway's task heartbeat
  // kept a session "heard" while an upload on it hung, and the upload never
  // failed (two jobs of 10,000 devices: 3 uploads stuck for minutes).
  // 0: wait for the retransmissions.
  uint32_t silence_timeout_ms = 10000;
  // Source address and port of each session, from a pool shared by the
  // process's transports (edgeadmm-fleet connect --local-address); null: the
  // kernel picks both. Must outlive the transport.
  LocalPortPool* local_ports = nullptr;
  // Listed by CoapClientContext::TakeWoken when libcoap hands this
  // transport something (e.g. the fleet's device index); kNoWakeTag: never.
  static constexpr size_t kNoWakeTag = SIZE_MAX;
  size_t wake_tag = kNoWakeTag;
};

class CoapDtlsTransport final : public Transport {
 public:
  // `context` and the strings/key in `config` must outlive the transport.
  CoapDtlsTransport(CoapClientContext& context, const CoapDtlsConfig& config);
  ~CoapDtlsTransport();

  // Does not stream bodies (streams_bodies() is false): a request with a
  // payload_source or a response_sink gets UNIMPLEMENTED.
  Status StartRequest(const TransportRequest& request,
                      ByteSpan response_buffer) override;
  bool TakeResult(TransportResult& result) override;
  void Cancel() override;
  Status StartObserve(const char* path, ByteSpan notification_buffer) override;
  bool TakeNotification(TransportResult& result) override;
  void StopObserve() override;
  // Close(): the next exchange handshakes again.
  void Reconnect() override;
  StatusWithSize Poll(uint32_t timeout_ms) override;

  // Closes the DTLS session (an exchange or observation in flight is
  // dropped). The next request opens a new one.
  void Close();

  // True while a DTLS session object exists.
  bool connected() const { return session_ != nullptr; }
  // True once a DTLS handshake of this transport has completed (the
  // fleet's in-flight limit: a device counts as starting until then).
  bool ever_connected() const { return ever_connected_; }
  // True once the server has accepted an Observe registration of this
  // transport (its answer carried the Observe option): the load harness's
  // "connected and registered".
  bool ever_registered() const { return ever_registered_; }
  // DTLS handshakes of this transport completed so far (reconnections
  // included): the load harness's handshakes/s.
  uint32_t handshakes() const { return handshakes_; }
  // Notifications the server pushed to a live observation (after its
  // registration's answer), block fetches not counted.
  uint32_t notifications() const { return notifications_; }
  // Why this transport's sessions ended so far, by reason.
  const SessionEnds& session_ends() const { return session_ends_; }

  size_t wake_tag() const { return config_.wake_tag; }
  CoapClientContext& context() const { return context_; }
  // The libcoap context of the current session (null without one): which
  // of its CoapClientContext's shards it is on.
  const coap_context_t* session_context() const;

  // Called by the context's libcoap handlers (not part of the port).
  // False if the response belongs to no open exchange (libcoap then
  // answers a notification with RST, ending that observation).
  bool OnResponse(const coap_pdu_t* received);
  // Fails the exchange whose token `sent` carries, or every open one when
  // `sent` is null or matches none, and ends the session; `why` is the
  // SessionEnds counter it adds to.
  void OnFailure(Status status, const coap_pdu_t* sent,
                 uint32_t SessionEnds::*why);
  void OnHandshakeDone();

 private:
  struct Token {
    uint8_t bytes[8] = {};
    size_t size = 0;
  };
  struct Slot {  // one exchange or observation
    Token token;
    ByteSpan buffer;
    CoapMethod method = CoapMethod::kGet;
    const char* path = nullptr;
    uint16_t content_format = 0;
    ConstByteSpan payload;
    size_t block = 0;         // Block1: the block in flight
    uint32_t block2 = 0;      // Block2: the block to request next
    uint32_t block2_szx = 0;  // Block2: the server's block size exponent
    size_t received = 0;      // Block2: body bytes received so far
    // Block2: the ETag of block 0, compared with the later blocks' (RFC 7959
    // section 2.4): a changed representation restarts the transfer.
    uint8_t etag[8] = {};
    size_t etag_size = 0;  // 0: none seen
    // Observe: the token of the GET fetching the rest of a notification
    // larger than one block (`token` stays the registration's).
    Token fetch_token;
    bool fetching = false;
    bool active = false;
    bool ready = false;
    bool answered = false;  // Observe: the registration got its response
    uint64_t started_ms = 0;
    TransportResult result;
  };

  Status EnsureSession();
  // Releases the libcoap session (and its pool port), if any.
  void ReleaseSession();
  // True once the DTLS handshake completed (event or session state).
  bool HandshakeDone();
  // Fails open exchanges whose handshake exceeded handshake_timeout_ms, or
  // that heard nothing for silence_timeout_ms after it.
  void CheckDeadlines();
  // Fails every open exchange with `status` and drops the session, keeping
  // the results for TakeResult / TakeNotification.
  void FailSession(Status status, uint32_t SessionEnds::*why);
  // UNAUTHENTICATED if the handshake got past the server's hello (the server
  // saw our identity and key exchange), else `otherwise`.
  Status HandshakeFailure(Status otherwise) const;
  // Sends the slot's request (its current Block1 block if the payload is
  // larger than one block, its next Block2 block if any) with a fresh token;
  // an observation's block GETs get it as their fetch_token.
  Status Send(Slot& slot, bool observe);
  // Handles a 2.31 Continue: true if consumed (next block sent or stale).
  bool ContinueUpload(const coap_pdu_t* received);
  static bool SameToken(const Token& token, const coap_pdu_t* pdu);
  void Complete(Slot& slot, const TransportResult& result);
  // Copies a response (block) into the slot's buffer and GETs the next
  // Block2 block until the body is whole, then completes the slot. A
  // `notification` (or the registration's response) starts a new body.
  void Deliver(Slot& slot, const coap_pdu_t* received, bool notification);

  CoapClientContext& context_;
  CoapDtlsConfig config_;
  coap_session_t* session_ = nullptr;
  uint16_t local_port_ = 0;  // from config_.local_ports; 0: none held
  bool handshake_done_ = false;
  bool ever_connected_ = false;
  bool ever_registered_ = false;
  uint32_t handshakes_ = 0;
  SessionEnds session_ends_;
  uint32_t notifications_ = 0;
  bool session_failed_ = false;
  uint64_t handshake_started_ms_ = 0;
  // The server's last answer to an exchange of ours (not a pushed
  // notification).
  uint64_t last_heard_ms_ = 0;
  Slot request_;
  Slot observe_;
};

}  // namespace edgeadmm::posix
