// DtlsSessionJanitor: which server DTLS sessions the daemon drops, so that a
// client that started over gets a new handshake (RFC 6347 section 4.2.8)
// instead of being swallowed by the session libcoap keeps for its address.
//
// Dropped are sessions still in their handshake after handshake_timeout_ms
// (a lost flight, a lost Finished, a client that gave up or rebooted) and
// established sessions on which a first ClientHello arrived AND whose peer
// then failed to prove it still holds the session: the janitor sends a CoAP
// ping (an empty CON) over the established session and keeps the session if
// the peer answers it (an RST, authenticated by the session's keys) within
// restart_probe_ms; otherwise the peer really started over and the session
// goes, so its next ClientHello starts afresh. A ClientHello header forged
// from the peer's address therefore no longer tears a live session down
// (RFC 6347 4.2.8: keep the old association until the new one is proven).
// The CoapServer feeds it libcoap's session events, OpenSSL's record headers
// and the answers to its pings.
#pragma once

#include <coap3/coap.h>

#include <cstddef>
#include <cstdint>
#include <unordered_map>

namespace edgeadmm::server {

// True for the 13-byte DTLS record header of a client's first ClientHello:
// a handshake record of epoch 0 with record sequence number 0. A client
// sends one only to start a new association; within an association epoch 0
// carries only its later handshake messages (sequence numbers >= 1).
bool IsFirstClientHelloHeader(const uint8_t* header, size_t length);

class DtlsSessionJanitor {
 public:
  // How long the peer of an established session has to answer the ping
  // after a first ClientHello came from its address.
  static constexpr int64_t kRestartProbeMs = 2000;

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
    probes_.erase(session);
  }
  // A first ClientHello arrived on an established session (from inside
  // libcoap's I/O: the ping goes out at the next DropStalled).
  void OnClientStartedOver(coap_session_t* session, int64_t now_ms);
  // The peer answered a ping with an RST (libcoap's nack handler, reason
  // COAP_NACK_RST, for message id `mid`): it still holds the session.
  void OnPingAnswered(coap_session_t* session, coap_mid_t mid);
  // Whether a probe of `session` is waiting for its answer (tests).
  bool probing(coap_session_t* session) const {
    return probes_.count(session) != 0;
  }

  // Disconnects the sessions still in their handshake that `chosen` picks
  // (those HandshakeAdmission evicted for a newcomer); libcoap frees them
  // in its next I/O round. Call outside libcoap's I/O. Returns how many.
  template <typename Chosen>
  size_t DropHandshakesIf(Chosen chosen) {
    size_t dropped = 0;
    for (auto it = handshakes_.begin(); it != handshakes_.end();) {
      coap_session_t* session = it->first;
      if (coap_session_get_state(session) != COAP_SESSION_STATE_ESTABLISHED &&
          chosen(session)) {
        it = handshakes_.erase(it);
        coap_session_disconnected(session, COAP_NACK_TLS_FAILED);
        ++dropped;
      } else {
        ++it;
      }
    }
    return dropped;
  }

  // Sends the pending pings and disconnects the sessions to drop; libcoap
  // frees them in its next I/O round. Call outside libcoap's I/O. Returns
  // how many sessions it pinged or disconnected (their contexts need a walk:
  // to free them, or to arm the ping's retransmission timer exactly).
  size_t DropStalled(int64_t now_ms);

 private:
  struct Probe {
    int64_t deadline_ms = 0;
    coap_mid_t mid = COAP_INVALID_MID;  // the ping, once sent
  };
  int64_t handshake_timeout_ms_;
  // Sessions whose handshake has not completed, with their start time.
  std::unordered_map<coap_session_t*, int64_t> handshakes_;
  // Established sessions whose peer must prove it still holds them.
  std::unordered_map<coap_session_t*, Probe> probes_;
};

}  // namespace edgeadmm::server
