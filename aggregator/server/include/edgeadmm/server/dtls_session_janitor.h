// DtlsSessionJanitor: which server DTLS sessions the daemon drops, so that a
// client that started over gets a new handshake (RFC 6347 section 4.2.8)
// instead of being swallowed by the session libcoap keeps for its address.
//
// Dropped are sessions still in their handshake after handshake_timeout_ms
// (a lost flight, a lost Finished, a client that gave up or rebooted) and
// established sessions on which a client's first ClientHello arrived. The
// CoapServer feeds it libcoap's session events and OpenSSL's record headers.
#pragma once

#include <coap3/coap.h>

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <unordered_set>

namespace edgeadmm::server {

// True for the 13-byte DTLS record header of a client's first ClientHello:
// a handshake record of epoch 0 with record sequence number 0. A client
// sends one only to start a new association; within an association epoch 0
// carries only its later handshake messages (sequence numbers >= 1).
bool IsFirstClientHelloHeader(const uint8_t* header, size_t length);

class DtlsSessionJanitor {
 public:
  explicit DtlsSessionJanitor(int64_t handshake_timeout_ms)
      : handshake_timeout_ms_(handshake_timeout_ms) {}

  // COAP_EVENT_SERVER_SESSION_NEW at monotonic `now_ms`.
  void OnHandshakeStarted(coap_session_t* session, int64_t now_ms) {
    handshakes_.emplace(session, now_ms);
  }
  // COAP_EVENT_DTLS_CONNECTED, _CLOSED or _ERROR.
  void OnHandshakeEnded(coap_session_t* session) { handshakes_.erase(session); }
  // COAP_EVENT_SERVER_SESSION_DEL: libcoap frees the session.
  void OnSessionFreed(coap_session_t* session) {
    handshakes_.erase(session);
    restarted_.erase(session);
  }
  // A first ClientHello arrived on an established session.
  void OnClientStartedOver(coap_session_t* session) {
    restarted_.insert(session);
  }

  // Disconnects the sessions to drop; libcoap frees them in its next I/O
  // round. Call outside libcoap's I/O.
  void DropStalled(int64_t now_ms);

 private:
  int64_t handshake_timeout_ms_;
  // Sessions whose handshake has not completed, with their start time.
  std::unordered_map<coap_session_t*, int64_t> handshakes_;
  // Sessions whose client started a new handshake.
  std::unordered_set<coap_session_t*> restarted_;
};

}  // namespace edgeadmm::server
