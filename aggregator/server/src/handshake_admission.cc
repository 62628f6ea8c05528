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
constexpr size_t kRecordHeader = 13;
constexpr size_t kHandshakeHeader = 12;
constexpr size_t kRandom = 32;

uint32_t Read24(const uint8_t* p) {
  return (uint32_t{p[0]} << 16) | (uint32_t{p[1]} << 8) | p[2];
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

// The cookie of the ClientHello passed last on this thread.
thread_local std::array<uint8_t, HandshakeAdmission::kCookieSize>
    passed_cookie{};
thread_local bool passed_cookie_set = false;

}  // namespace

Result<HandshakeAdmission> HandshakeAdmission::Create(
    const HandshakeAdmissionOptions& options, int64_t now_ms,
    size_t max_pending) {
  HandshakeAdmission admission(options, max_pending);
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
  rotated_ms_ = now_ms;
  return Status::Ok();
}

bool HandshakeAdmission::Cookie(uint8_t epoch, const sockaddr* peer,
                                socklen_t peer_size, uint8_t* out) const {
  const std::string key = AddressKey(peer, peer_size, /*port=*/true);
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
                                     const sockaddr* peer,
                                     socklen_t peer_size) const {
  if (size != kCookieSize) return false;
  const uint8_t epoch = cookie[0];
  if (epoch != epoch_ && epoch != static_cast<uint8_t>(epoch_ - 1)) {
    return false;
  }
  uint8_t expected[kCookieSize];
  return Cookie(epoch, peer, peer_size, expected) &&
         CRYPTO_memcmp(expected, cookie, kCookieSize) == 0;
}

HandshakeAdmission::Verdict HandshakeAdmission::Judge(
    const uint8_t* head, size_t size, const sockaddr* peer, socklen_t peer_size,
    int64_t now_ms, std::array<uint8_t, kReplySize>& reply) {
  passed_cookie_set = false;
  passed_address_.clear();
  const std::string address = AddressKey(peer, peer_size, /*port=*/true);
  if (sessions_.count(address) != 0) {
    ++counts_.passed;
    return Verdict::kPass;
  }
  if (now_ms - rotated_ms_ >= options_.secret_period_ms) {
    (void)Rotate(now_ms);  // on failure the old secrets stay in use
  }
  // A first-flight ClientHello: handshake record of epoch 0 holding one
  // unfragmented ClientHello (DTLSv1_listen refuses fragments too).
  const size_t body = kRecordHeader + kHandshakeHeader;
  if (size < body || head[0] != kHandshakeRecord || head[3] != 0 ||
      head[4] != 0 || head[kRecordHeader] != kClientHello ||
      Read24(head + kRecordHeader + 6) != 0 ||
      Read24(head + kRecordHeader + 9) != Read24(head + kRecordHeader + 1)) {
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
  if (CookieValid(cookie, cookie_size, peer, peer_size)) {
    const auto source =
        pending_by_source_.find(AddressKey(peer, peer_size, /*port=*/false));
    if (pending_.size() >= max_pending_ ||
        (source != pending_by_source_.end() &&
         source->second >= options_.max_pending_per_source)) {
      ++counts_.over_limit;
      return Verdict::kDrop;
    }
    std::memcpy(passed_cookie.data(), cookie, kCookieSize);
    passed_cookie_set = true;
    passed_address_ = address;
    ++counts_.passed;
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
  if (!Cookie(epoch_, peer, peer_size, verify + 3)) {
    ++counts_.dropped;
    return Verdict::kDrop;
  }
  ++counts_.verify_requests;
  return Verdict::kAnswer;
}

void HandshakeAdmission::OnSessionNew(const sockaddr* peer,
                                      socklen_t peer_size) {
  const std::string address = AddressKey(peer, peer_size, /*port=*/true);
  ++sessions_[address];
  if (address == passed_address_ && pending_.count(address) == 0) {
    std::string source = AddressKey(peer, peer_size, /*port=*/false);
    ++pending_by_source_[source];
    pending_.emplace(address, std::move(source));
  }
}

void HandshakeAdmission::OnHandshakeEnded(const sockaddr* peer,
                                          socklen_t peer_size) {
  auto it = pending_.find(AddressKey(peer, peer_size, /*port=*/true));
  if (it == pending_.end()) return;
  auto source = pending_by_source_.find(it->second);
  if (source != pending_by_source_.end() && --source->second <= 0) {
    pending_by_source_.erase(source);
  }
  pending_.erase(it);
}

void HandshakeAdmission::OnSessionFreed(const sockaddr* peer,
                                        socklen_t peer_size) {
  OnHandshakeEnded(peer, peer_size);
  auto it = sessions_.find(AddressKey(peer, peer_size, /*port=*/true));
  if (it != sessions_.end() && --it->second <= 0) sessions_.erase(it);
}

bool HandshakeAdmission::VerifyPassedCookie(const uint8_t* cookie,
                                            size_t size) {
  // OpenSSL checks it twice (DTLSv1_listen, then SSL_accept on the same
  // ClientHello); the next Judge forgets it.
  return passed_cookie_set && size == kCookieSize &&
         CRYPTO_memcmp(cookie, passed_cookie.data(), size) == 0;
}

}  // namespace edgeadmm::server
