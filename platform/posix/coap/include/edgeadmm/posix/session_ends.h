// SessionEnds: why a CoapDtlsTransport's DTLS sessions ended, one counter
// per reason. A session that ends is followed by a new handshake at the next
// exchange, so these explain a fleet's handshake rate (edgeadmm-fleet
// connect prints them on its progress line).
#pragma once

#include <cstdint>

namespace edgeadmm::posix {

struct SessionEnds {
  uint32_t refreshes = 0;           // Reconnect(): the client's task refresh
  uint32_t handshake_timeouts = 0;  // no completed handshake in time
  uint32_t silences = 0;            // silence_timeout_ms without an answer
  uint32_t retries_exhausted = 0;   // libcoap gave up retransmitting
  uint32_t resets = 0;              // the server answered a message with RST
  uint32_t dtls_failures = 0;       // DTLS error or failed handshake
  uint32_t lost = 0;  // DTLS closed, session failed, ICMP, undeliverable

  SessionEnds& operator+=(const SessionEnds& other) {
    refreshes += other.refreshes;
    handshake_timeouts += other.handshake_timeouts;
    silences += other.silences;
    retries_exhausted += other.retries_exhausted;
    resets += other.resets;
    dtls_failures += other.dtls_failures;
    lost += other.lost;
    return *this;
  }
};

}  // namespace edgeadmm::posix
