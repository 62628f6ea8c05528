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
//     address and port and the client random under a secret that rotates
//     every secret_period_ms)
//     and dropped: nothing is allocated for it;
//   - a ClientHello whose cookie is valid for its source address, and
//     passed no ClientHello before (a replay is dropped): passed on while
//     its source prefix (the IPv4 address, the IPv6 /64) has fewer than
//     max_pending_per_source handshakes in progress and there is room
//     (below; else dropped, and the device retries);
//   - anything else from an unknown address: dropped (libcoap would).
// Room: at most max_pending handshakes in progress, and with max_sessions
// no more sessions than that in all. When full, a newcomer from a prefix
// with fewer handshakes in progress than the busiest prefix less one takes
// the place of that prefix's oldest handshake if it has been in progress
// for evict_after_ms (TakeEvictions: the server drops it). So a flood from
// many addresses holds at most an even share, a new device gets in within
// evict_after_ms (issue 32 item 3), a handshake that is progressing is not
// torn down for a newcomer (its device would only start over: a returning
// fleet then wastes its handshakes on each other), and an established
// session is never evicted for a half-open one (item 5): established
// sessions end only by their idle timeout.
// libcoap's own cookie check is replaced by VerifyPassedCookie (the cookie
// of the ClientHello this class just passed), so libcoap turns the passed
// ClientHello into a handshake at once and no half-open state lingers.
#pragma once

#include <sys/socket.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "edgeadmm/result.h"
#include "edgeadmm/status.h"

namespace edgeadmm::server {

struct HandshakeAdmissionOptions {
  // Handshakes in progress (cookie verified, not yet established, failed
  // or dropped by the janitor) one source IP may have. A fleet behind one
  // NAT address shares it.
  int max_pending_per_source = 32;
  // Handshakes in progress in all.
  int max_pending = 256;
  // Sessions in all (established and in progress); 0: no limit.
  int max_sessions = 0;
  // A handshake in progress this long may be evicted for a newcomer (see
  // Room above): a stalled one, not one whose flights are still coming.
  int64_t evict_after_ms = 2'000;
  // The cookie secret rotates this often; a cookie is valid for one to two
  // periods.
  int64_t secret_period_ms = 30'000;
};

// Every member locks the admission's own mutex: the shards' reads judge on
// several threads (ServerOptions::threads), and the ClientHello a thread
// passed last is remembered per thread.
class HandshakeAdmission {
 public:
  enum class Verdict {
    kPass,    // let libcoap read it
    kDrop,    // consume it, no answer
    kAnswer,  // consume it and send the HelloVerifyRequest in `reply`
  };
  struct Counts {
    uint64_t passed = 0;
    uint64_t passed_hellos = 0;    // of them, ClientHellos with a valid cookie
    uint64_t verify_requests = 0;  // HelloVerifyRequests sent
    uint64_t over_limit = 0;       // valid cookie, source at its pending limit
    uint64_t over_capacity = 0;    // valid cookie, no room and none to evict
    uint64_t replays = 0;          // valid cookie that passed before
    uint64_t evicted = 0;          // handshakes given up for a newcomer
    uint64_t dropped = 0;          // not a ClientHello, unknown address
  };
  // A HelloVerifyRequest with a cookie of kCookieSize bytes.
  static constexpr size_t kCookieSize = 17;
  static constexpr size_t kReplySize = 13 + 12 + 3 + kCookieSize;
  // Bytes of a datagram Judge needs at most (record and handshake headers,
  // version, random, session id and cookie of a ClientHello).
  static constexpr size_t kHeadBytes = 13 + 12 + 2 + 32 + 1 + 32 + 1 + 255;

  // UNAVAILABLE if the kernel gives no random bytes for the secret.
  static Result<HandshakeAdmission> Create(
      const HandshakeAdmissionOptions& options, int64_t now_ms);

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

  // The address keys (PeerKey) of handshakes evicted since the last call;
  // the server drops their sessions.
  std::vector<std::string> TakeEvictions();
  // The key of a peer's address and port, as TakeEvictions reports it.
  static std::string PeerKey(const sockaddr* peer, socklen_t peer_size);

  Counts counts() const {
    const std::lock_guard<std::mutex> lock(*mutex_);
    return counts_;
  }
  // Handshakes in progress that this admission let start.
  size_t pending() const {
    const std::lock_guard<std::mutex> lock(*mutex_);
    return pending_.size();
  }

 private:
  explicit HandshakeAdmission(const HandshakeAdmissionOptions& options)
      : options_(options) {}
  Status Rotate(int64_t now_ms);
  // False if `peer` is not IPv4/IPv6 (or HMAC fails).
  // The cookie of a ClientHello with client random `random` (32 bytes).
  bool Cookie(uint8_t epoch, const sockaddr* peer, socklen_t peer_size,
              const uint8_t* random, uint8_t* out) const;
  bool CookieValid(const uint8_t* cookie, size_t size, const sockaddr* peer,
                   socklen_t peer_size, const uint8_t* random) const;

  HandshakeAdmissionOptions options_;
  // secrets_[epoch % 2]; the cookie's first byte is the epoch's low byte.
  std::array<std::array<uint8_t, 32>, 2> secrets_{};
  uint8_t epoch_ = 0;
  int64_t rotated_ms_ = 0;
  // Whether a newcomer from a prefix with `mine` handshakes in progress
  // may take a place: when there is room, or by evicting the oldest
  // handshake of the busiest prefix.
  bool MakeRoom(size_t mine, int64_t now_ms);
  size_t Room() const;
  void ForgetPending(const std::string& address);

  std::unordered_map<std::string, int> sessions_;  // address+port -> count
  size_t session_count_ = 0;
  // Handshakes in progress: address+port -> source prefix and the time
  // it passed, and per prefix their addresses, oldest first.
  struct Pending {
    std::string prefix;
    int64_t passed_ms = 0;
  };
  std::unordered_map<std::string, Pending> pending_;
  std::unordered_map<std::string, std::deque<std::string>> pending_by_prefix_;
  std::vector<std::string> evictions_;       // not yet taken
  std::unordered_set<std::string> evicted_;  // their sessions not yet freed
  // Cookies that passed, per epoch parity (a cookie passes once).
  std::array<std::unordered_set<std::string>, 2> used_cookies_;
  Counts counts_;
  // The shards' reads judge on several threads (ServerOptions::threads);
  // a pointer, so that the admission stays movable.
  std::unique_ptr<std::mutex> mutex_ = std::make_unique<std::mutex>();
};

}  // namespace edgeadmm::server
