#include "edgeadmm/server/dtls_session_janitor.h"

#include <openssl/ssl3.h>

#include <unordered_set>

#include "edgeadmm/log.h"

namespace edgeadmm::server {

bool IsFirstClientHelloHeader(const uint8_t* header, size_t length) {
  if (length < 13 || header[0] != SSL3_RT_HANDSHAKE) return false;
  for (size_t i = 3; i < 11; ++i) {  // epoch (2 bytes), sequence (6 bytes)
    if (header[i] != 0) return false;
  }
  return true;
}

void DtlsSessionJanitor::OnClientStartedOver(coap_session_t* session,
                                             int64_t now_ms) {
  // A second ClientHello while the probe runs changes nothing.
  probes_.try_emplace(session, Probe{now_ms + kRestartProbeMs});
}

void DtlsSessionJanitor::OnPingAnswered(coap_session_t* session,
                                        coap_mid_t mid) {
  auto it = probes_.find(session);
  if (it == probes_.end() || it->second.mid != mid) return;
  EDGEADMM_LOG_WARN(
      "dtls: kept %s: its peer answered over the session, so the "
      "ClientHello from its address was not its own (forged or stray)",
      coap_session_str(session));
  probes_.erase(it);
}

size_t DtlsSessionJanitor::DropStalled(int64_t now_ms) {
  std::unordered_set<coap_session_t*> stalled;
  size_t pinged = 0;
  for (auto it = probes_.begin(); it != probes_.end();) {
    Probe& probe = it->second;
    if (probe.mid == COAP_INVALID_MID) {
      probe.mid = coap_session_send_ping(it->first);
      ++pinged;
      // No ping could be sent (the session is not established): the peer
      // cannot prove anything, the probe runs out.
    }
    if (now_ms >= probe.deadline_ms) {
      stalled.insert(it->first);
      it = probes_.erase(it);
    } else {
      ++it;
    }
  }
  for (const auto& [session, created_ms] : handshakes_) {
    if (now_ms - created_ms >= handshake_timeout_ms_ &&
        coap_session_get_state(session) != COAP_SESSION_STATE_ESTABLISHED) {
      stalled.insert(session);
    }
  }
  for (coap_session_t* session : stalled) {
    handshakes_.erase(session);
    // The client gave up on this session: a lost handshake flight, a lost
    // Finished of ours, a lost close_notify or a reboot (it did not answer
    // the probe). libcoap keeps one session per peer address and would feed
    // the client's new handshake to this one, which ignores it (RFC 6347
    // section 4.2.8 asks for a new handshake instead). Dropped, the client's
    // next ClientHello starts afresh; libcoap frees the session in its next
    // I/O round.
    if (coap_session_get_type(session) == COAP_SESSION_TYPE_HELLO) {
      // A ClientHello the admission passed and OpenSSL's DTLSv1_listen
      // refused (HandshakeAdmission passes only what it takes): libcoap
      // keeps this session, which disconnecting does not free, until a new
      // address arrives 30 s later; the address cannot handshake till then.
      EDGEADMM_LOG_WARN(
          "dtls: %s: libcoap keeps the session of a ClientHello OpenSSL "
          "refused; its address cannot complete a handshake until freed",
          coap_session_str(session));
    } else {
      EDGEADMM_LOG_INFO("dtls: dropping a session the client gave up on: %s",
                        coap_session_str(session));
    }
    coap_session_disconnected(session, COAP_NACK_TLS_FAILED);
  }
  return pinged + stalled.size();
}

}  // namespace edgeadmm::server
