#include "edgeadmm/server/handshake_admission.h"

#include <netinet/in.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <cstring>

#include "edgeadmm/registry/secure_random.h"

namespace edgeadmm::server {
namespace {

// DTLS 1.2 wire constants (RFC 6347 section 4.1, 4.2.2, 4.3.2).
constexpr uint8_t kHandshakeRecord = 22;
constexpr uint8_t kClientHello = 1;
constexpr uint8_t kHelloVerifyRequest = 3;
constexpr uint8_t kDtlsMajor = 0xfe;  // every DTLS version's major byte
constexpr size_t kRecordHeader = 13;
constexpr size_t kHandshakeHeader = 12;
constexpr size_t kRandom = 32;

uint32_t Read16(const uint8_t* p) { return (uint32_t{p[0]} << 8) | p[1]; }

uint32_t Read24(const uint8_t* p) {
  return (uint32_t{p[0]} << 16) | (uint32_t{p[1]} << 8) | p[2];
}

// A first-flight ClientHello as DTLSv1_listen takes it: a whole DTLS
// handshake record of epoch 0 holding exactly one unfragmented ClientHello
// whose message_seq is 0 (the first) or 1 (after one HelloVerifyRequest).
// libcoap keeps the session it makes for a ClientHello that DTLSv1_listen
// then refuses, and feeds that session every later datagram of the
// address: passed, such a ClientHello would lock its address out. A client
// that took a stray HelloVerifyRequest for its own sends message_seq 2;
// dropped, it starts over when its handshake times out.
bool FirstFlightHello(const uint8_t* head, size_t size) {
  if (size < kRecordHeader + kHandshakeHeader) return false;
  const uint8_t* message = head + kRecordHeader;
  const uint32_t record_length = Read16(head + 11);
  const bool whole_record =
      size >= HandshakeAdmission::kHeadBytes ||  // the rest is not seen
      kRecordHeader + record_length <= size;
  return head[0] == kHandshakeRecord && head[1] == kDtlsMajor && head[3] == 0 &&
         head[4] == 0 && whole_record && message[0] == kClientHello &&
         Read16(message + 4) <= 1 &&
         Read24(message + 6) == 0 &&                    // fragment_offset
         Read24(message + 9) == Read24(message + 1) &&  // unfragmented
         record_length == kHandshakeHeader + Read24(message + 9);
}

// The address bytes that identify a peer: family, IP and, with `port`, the
// port. Anything but IPv4/IPv6 gives an empty key.
std::string AddressKey(const sockaddr* peer, socklen_t size, bool port) {
  std::string key;
  if (peer == nullptr) return key;
  if (peer->sa_family == AF_INET && size >= sizeof(sockaddr_in)) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(peer);
    key.push_back('4');
    key.append(reinterpret_cast<const char*>(&in->sin_addr), 4);
    if (port) key.append(reinterpret_cast<const char*>(&in->sin_port), 2);
  } else if (peer->sa_family == AF_INET6 && size >= sizeof(sockaddr_in6)) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(peer);
    key.push_back('6');
    key.append(reinterpret_cast<const char*>(&in6->sin6_addr), 16);
    if (port) key.append(reinterpret_cast<const char*>(&in6->sin6_port), 2);
  }
  return key;
}

// The prefix a peer's handshakes are counted under: its IPv4 address (also
// when IPv4-mapped into IPv6, as a socket bound to :: sees IPv4 peers), or
// its IPv6 /64 (one subscriber's usual allocation). Empty if neither.
std::string PrefixKey(const sockaddr* peer, socklen_t size) {
  if (peer != nullptr && peer->sa_family == AF_INET6 &&
      size >= sizeof(sockaddr_in6)) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(peer);
    const uint8_t* a = in6->sin6_addr.s6_addr;
    if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr)) {
      return std::string("4") +
             std::string(reinterpret_cast<const char*>(a + 12), 4);
    }
    return std::string("6") + std::string(reinterpret_cast<const char*>(a), 8);
  }
  return AddressKey(peer, size, /*port=*/false);
}

// The ClientHello passed last on this thread (libcoap reads it, listens
// and makes its session on one thread): its cookie, which admission passed
// it, its address+port and when.
thread_local std::array<uint8_t, HandshakeAdmission::kCookieSize>
    passed_cookie{};
thread_local bool passed_cookie_set = false;
thread_local const HandshakeAdmission* passed_by = nullptr;
thread_local std::string passed_address;
thread_local int64_t passed_ms = 0;

}  // namespace

Result<HandshakeAdmission> HandshakeAdmission::Create(
    const HandshakeAdmissionOptions& options, int64_t now_ms) {
  HandshakeAdmission admission(options);
  for (auto& secret : admission.secrets_) {
    EDGEADMM_TRY(registry::FillSecureRandom(secret.data(), secret.size()));
  }
  admission.rotated_ms_ = now_ms;
  return admission;
}

Status HandshakeAdmission::Rotate(int64_t now_ms) {
  std::array<uint8_t, 32> fresh{};
  EDGEADMM_TRY(registry::FillSecureRandom(fresh.data(), fresh.size()));
  ++epoch_;
  secrets_[epoch_ % 2] = fresh;
  used_cookies_[epoch_ % 2].clear();  // the cookies of two epochs ago
  rotated_ms_ = now_ms;
  return Status::Ok();
}

bool HandshakeAdmission::Cookie(uint8_t epoch, const sockaddr* peer,
                                socklen_t peer_size, const uint8_t* random,
                                uint8_t* out) const {
  // RFC 6347 4.2.1: HMAC(secret, client address, client parameters). The
  // client's random binds the cookie to this handshake: a client that starts
  // over sends a new random and gets a new cookie, a replay does not.
  std::string key = AddressKey(peer, peer_size, /*port=*/true);
  if (!key.empty()) key.append(reinterpret_cast<const char*>(random), kRandom);
  const auto& secret = secrets_[epoch % 2];
  uint8_t mac[EVP_MAX_MD_SIZE];
  unsigned int mac_size = 0;
  out[0] = epoch;
  if (key.empty() ||
      HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
           reinterpret_cast<const uint8_t*>(key.data()), key.size(), mac,
           &mac_size) == nullptr ||
      mac_size < kCookieSize - 1) {
    return false;
  }
  std::memcpy(out + 1, mac, kCookieSize - 1);
  return true;
}

bool HandshakeAdmission::CookieValid(const uint8_t* cookie, size_t size,
                                     const sockaddr* peer, socklen_t peer_size,
                                     const uint8_t* random) const {
  if (size != kCookieSize) return false;
  const uint8_t epoch = cookie[0];
  if (epoch != epoch_ && epoch != static_cast<uint8_t>(epoch_ - 1)) {
    return false;
  }
  uint8_t expected[kCookieSize];
  return Cookie(epoch, peer, peer_size, random, expected) &&
         CRYPTO_memcmp(expected, cookie, kCookieSize) == 0;
}

HandshakeAdmission::Verdict HandshakeAdmission::Judge(
    const uint8_t* head, size_t size, const sockaddr* peer, socklen_t peer_size,
    int64_t now_ms, std::array<uint8_t, kReplySize>& reply) {
  const std::lock_guard<std::mutex> lock(*mutex_);
  passed_cookie_set = false;
  passed_by = nullptr;
  const std::string address = AddressKey(peer, peer_size, /*port=*/true);
  if (sessions_.count(address) != 0) {
    ++counts_.passed;
    return Verdict::kPass;
  }
  if (now_ms - rotated_ms_ >= options_.secret_period_ms) {
    (void)Rotate(now_ms);  // on failure the old secrets stay in use
  }
  // Only a first-flight ClientHello goes further (FirstFlightHello).
  const size_t body = kRecordHeader + kHandshakeHeader;
  if (!FirstFlightHello(head, size)) {
    ++counts_.dropped;
    return Verdict::kDrop;
  }
  size_t at = body + 2 + kRandom;  // client_version, random
  if (at + 1 > size) {
    ++counts_.dropped;
    return Verdict::kDrop;
  }
  at += 1 + head[at];  // session_id
  if (at + 1 > size || at + 1 + head[at] > size) {
    ++counts_.dropped;
    return Verdict::kDrop;
  }
  const uint8_t* cookie = head + at + 1;
  const size_t cookie_size = head[at];
  const uint8_t* random = head + body + 2;
  if (CookieValid(cookie, cookie_size, peer, peer_size, random)) {
    std::string key(reinterpret_cast<const char*>(cookie), kCookieSize);
    std::unordered_set<std::string>& used = used_cookies_[cookie[0] % 2];
    if (used.count(key) != 0) {
      ++counts_.replays;
      return Verdict::kDrop;
    }
    const auto prefix = pending_by_prefix_.find(PrefixKey(peer, peer_size));
    const size_t mine =
        prefix == pending_by_prefix_.end() ? 0 : prefix->second.size();
    if (mine >= static_cast<size_t>(options_.max_pending_per_source)) {
      ++counts_.over_limit;
      return Verdict::kDrop;
    }
    if (!MakeRoom(mine, now_ms)) {
      ++counts_.over_capacity;
      return Verdict::kDrop;
    }
    used.insert(std::move(key));
    std::memcpy(passed_cookie.data(), cookie, kCookieSize);
    passed_cookie_set = true;
    passed_by = this;
    passed_address = address;
    passed_ms = now_ms;
    ++counts_.passed;
    ++counts_.passed_hellos;
    return Verdict::kPass;
  }
  // HelloVerifyRequest (RFC 6347 4.2.1): record sequence number and
  // message_seq of the ClientHello it answers, server_version DTLS 1.0.
  uint8_t* r = reply.data();
  std::memset(r, 0, kReplySize);
  r[0] = kHandshakeRecord;
  r[1] = 0xfe;
  r[2] = 0xff;
  std::memcpy(r + 5, head + 5, 6);
  r[12] = static_cast<uint8_t>(kHandshakeHeader + 3 + kCookieSize);
  uint8_t* hs = r + kRecordHeader;
  hs[0] = kHelloVerifyRequest;
  hs[3] = static_cast<uint8_t>(3 + kCookieSize);
  hs[4] = head[kRecordHeader + 4];
  hs[5] = head[kRecordHeader + 5];
  hs[11] = hs[3];
  uint8_t* verify = hs + kHandshakeHeader;
  verify[0] = 0xfe;
  verify[1] = 0xff;
  verify[2] = kCookieSize;
  if (!Cookie(epoch_, peer, peer_size, random, verify + 3)) {
    ++counts_.dropped;
    return Verdict::kDrop;
  }
  ++counts_.verify_requests;
  return Verdict::kAnswer;
}

size_t HandshakeAdmission::Room() const {
  auto room = static_cast<size_t>(options_.max_pending);
  if (options_.max_sessions > 0) {
    const size_t established =
        session_count_ - pending_.size() - evicted_.size();
    const auto max = static_cast<size_t>(options_.max_sessions);
    room = std::min(room, max > established ? max - established : 0);
  }
  return room;
}

bool HandshakeAdmission::MakeRoom(size_t mine, int64_t now_ms) {
  if (pending_.size() < Room()) return true;
  // The busiest prefix (a walk of at most max_pending prefixes, only when
  // full).
  auto busiest = pending_by_prefix_.end();
  for (auto it = pending_by_prefix_.begin(); it != pending_by_prefix_.end();
       ++it) {
    if (busiest == pending_by_prefix_.end() ||
        it->second.size() > busiest->second.size()) {
      busiest = it;
    }
  }
  // Evict only for a newcomer that would still have fewer than the busiest
  // (prefixes at an even share do not take places from each other), and
  // only a handshake that has stalled.
  if (busiest == pending_by_prefix_.end() ||
      busiest->second.size() <= mine + 1) {
    return false;
  }
  const std::string oldest = busiest->second.front();
  const auto found = pending_.find(oldest);
  if (found != pending_.end() &&
      now_ms - found->second.passed_ms < options_.evict_after_ms) {
    return false;
  }
  ForgetPending(oldest);
  evicted_.insert(oldest);
  evictions_.push_back(oldest);
  ++counts_.evicted;
  return pending_.size() < Room();
}

void HandshakeAdmission::ForgetPending(const std::string& address) {
  auto it = pending_.find(address);
  if (it == pending_.end()) return;
  auto prefix = pending_by_prefix_.find(it->second.prefix);
  if (prefix != pending_by_prefix_.end()) {
    std::deque<std::string>& q = prefix->second;
    q.erase(std::remove(q.begin(), q.end(), address), q.end());
    if (q.empty()) pending_by_prefix_.erase(prefix);
  }
  pending_.erase(it);
}

std::vector<std::string> HandshakeAdmission::TakeEvictions() {
  const std::lock_guard<std::mutex> lock(*mutex_);
  std::vector<std::string> out;
  out.swap(evictions_);
  return out;
}

std::string HandshakeAdmission::PeerKey(const sockaddr* peer,
                                        socklen_t peer_size) {
  return AddressKey(peer, peer_size, /*port=*/true);
}

void HandshakeAdmission::OnSessionNew(const sockaddr* peer,
                                      socklen_t peer_size) {
  const std::lock_guard<std::mutex> lock(*mutex_);
  const std::string address = AddressKey(peer, peer_size, /*port=*/true);
  ++sessions_[address];
  ++session_count_;
  if (passed_by == this && address == passed_address &&
      pending_.count(address) == 0) {
    std::string prefix = PrefixKey(peer, peer_size);
    pending_by_prefix_[prefix].push_back(address);
    pending_.emplace(address, Pending{std::move(prefix), passed_ms});
  }
}

void HandshakeAdmission::OnHandshakeEnded(const sockaddr* peer,
                                          socklen_t peer_size) {
  const std::lock_guard<std::mutex> lock(*mutex_);
  ForgetPending(AddressKey(peer, peer_size, /*port=*/true));
}

void HandshakeAdmission::OnSessionFreed(const sockaddr* peer,
                                        socklen_t peer_size) {
  const std::lock_guard<std::mutex> lock(*mutex_);
  const std::string address = AddressKey(peer, peer_size, /*port=*/true);
  ForgetPending(address);
  evicted_.erase(address);
  auto it = sessions_.find(address);
  if (it == sessions_.end()) return;
  --session_count_;
  if (--it->second <= 0) sessions_.erase(it);
}

bool HandshakeAdmission::VerifyPassedCookie(const uint8_t* cookie,
                                            size_t size) {
  // OpenSSL checks it twice (DTLSv1_listen, then SSL_accept on the same
  // ClientHello); the next Judge forgets it.
  return passed_cookie_set && size == kCookieSize &&
         CRYPTO_memcmp(cookie, passed_cookie.data(), size) == 0;
}

}  // namespace edgeadmm::server
