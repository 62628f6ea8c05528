// HandshakeAdmission: the DTLS cookie exchange (RFC 6347 section 4.2.1),
// done statelessly in front of libcoap, and a per-source-address limit on
// handshakes in progress.
//
// Why: libcoap 4.3.1 allocates a session for every ClientHello from a new
// address before the cookie is verified, counts those sessions against a
// cap of 100 and frees one only when another ClientHello arrives 30 s later.
// About four spoofed ClientHellos per second therefore kept every device
// out (issue 14 item 1). Here every datagram of the daemon's endpoint is
// judged before libcoap reads it (EndpointReadFilter):
//   - from an address libcoap has a session for: passed on;
//   - a first-flight ClientHello without a valid cookie: answered with a
//     HelloVerifyRequest carrying a cookie (HMAC-SHA256 of the source
//     address and port under a secret that rotates every secret_period_ms)
//     and dropped: nothing is allocated for it;
//   - a ClientHello whose cookie is valid for its source address: passed on
//     while its source IP has fewer than max_pending_per_source handshakes
//     in progress and all sources fewer than max_pending, else dropped (the
//     device retries). libcoap's own cap (max_handshake_sessions) admits
//     one handshake more than it is set to (issue 32 item 9): max_pending is
//     the cap that holds;
//   - anything else from an unknown address: dropped (libcoap would).
// libcoap's own cookie check is replaced by VerifyPassedCookie (the cookie
// of the ClientHello this class just passed), so libcoap turns the passed
// ClientHello into a handshake at once and no half-open state lingers.
#pragma once

#include <sys/socket.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>

#include "edgeadmm/result.h"
#include "edgeadmm/status.h"

namespace edgeadmm::server {

struct HandshakeAdmissionOptions {
  // Handshakes in progress (cookie verified, not yet established, failed
  // or dropped by the janitor) one source IP may have. A fleet behind one
  // NAT address shares it.
  int max_pending_per_source = 32;
  // The cookie secret rotates this often; a cookie is valid for one to two
  // periods.
  int64_t secret_period_ms = 30'000;
};

class HandshakeAdmission {
 public:
  enum class Verdict {
    kPass,    // let libcoap read it
    kDrop,    // consume it, no answer
    kAnswer,  // consume it and send the HelloVerifyRequest in `reply`
  };
  struct Counts {
    uint64_t passed = 0;
    uint64_t verify_requests = 0;  // HelloVerifyRequests sent
    uint64_t over_limit = 0;       // valid cookie, source at its pending limit
    uint64_t dropped = 0;          // not a ClientHello, unknown address
  };
  // A HelloVerifyRequest with a cookie of kCookieSize bytes.
  static constexpr size_t kCookieSize = 17;
  static constexpr size_t kReplySize = 13 + 12 + 3 + kCookieSize;
  // Bytes of a datagram Judge needs at most (record and handshake headers,
  // version, random, session id and cookie of a ClientHello).
  static constexpr size_t kHeadBytes = 13 + 12 + 2 + 32 + 1 + 32 + 1 + 255;

  // UNAVAILABLE if the kernel gives no random bytes for the secret.
  // `max_pending`: handshakes in progress from all sources at most (the
  // daemon's max_handshakes).
  static Result<HandshakeAdmission> Create(
      const HandshakeAdmissionOptions& options, int64_t now_ms,
      size_t max_pending = 1024);

  // Judges the datagram whose first `size` bytes are `head` (the whole
  // datagram if shorter than kHeadBytes) from `peer`. For kAnswer, `reply`
  // holds the HelloVerifyRequest (kReplySize bytes) to send to `peer`.
  Verdict Judge(const uint8_t* head, size_t size, const sockaddr* peer,
                socklen_t peer_size, int64_t now_ms,
                std::array<uint8_t, kReplySize>& reply);

  // libcoap's sessions, by remote address: their datagrams pass. A session
  // made for the ClientHello just passed is a handshake in progress until
  // OnHandshakeEnded (established, failed) or OnSessionFreed.
  void OnSessionNew(const sockaddr* peer, socklen_t peer_size);
  void OnHandshakeEnded(const sockaddr* peer, socklen_t peer_size);
  void OnSessionFreed(const sockaddr* peer, socklen_t peer_size);

  // OpenSSL's cookie check for libcoap's DTLSv1_listen: true if `cookie`
  // is the one of the ClientHello a HandshakeAdmission passed last on this
  // thread (libcoap reads and listens on one thread, in that order).
  static bool VerifyPassedCookie(const uint8_t* cookie, size_t size);

  const Counts& counts() const { return counts_; }
  // Handshakes in progress that this admission let start.
  size_t pending() const { return pending_.size(); }

 private:
  HandshakeAdmission(const HandshakeAdmissionOptions& options,
                     size_t max_pending)
      : options_(options), max_pending_(max_pending) {}
  Status Rotate(int64_t now_ms);
  // False if `peer` is not IPv4/IPv6 (or HMAC fails).
  bool Cookie(uint8_t epoch, const sockaddr* peer, socklen_t peer_size,
              uint8_t* out) const;
  bool CookieValid(const uint8_t* cookie, size_t size, const sockaddr* peer,
                   socklen_t peer_size) const;

  HandshakeAdmissionOptions options_;
  size_t max_pending_;
  // secrets_[epoch % 2]; the cookie's first byte is the epoch's low byte.
  std::array<std::array<uint8_t, 32>, 2> secrets_{};
  uint8_t epoch_ = 0;
  int64_t rotated_ms_ = 0;
  std::unordered_map<std::string, int> sessions_;  // address+port -> count
  // Handshakes in progress: address+port -> source IP, and per source IP.
  std::unordered_map<std::string, std::string> pending_;
  std::unordered_map<std::string, int> pending_by_source_;
  // The address+port of the ClientHello passed last with a valid cookie.
  std::string passed_address_;
  Counts counts_;
};

}  // namespace edgeadmm::server
