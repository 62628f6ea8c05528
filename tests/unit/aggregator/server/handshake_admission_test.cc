// HandshakeAdmission without sockets: which datagrams pass to libcoap, which
// are answered with a HelloVerifyRequest, which are dropped.
#include "edgeadmm/server/handshake_admission.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>

#include <optional>
#include <string>
#include <vector>

#include "dtls_hello.h"

namespace edgeadmm::server {
namespace {

using testing::ClientHello;
using testing::CookieOf;
using Verdict = HandshakeAdmission::Verdict;

sockaddr_in Peer(uint32_t ip, uint16_t port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(ip);
  a.sin_port = htons(port);
  return a;
}

class HandshakeAdmissionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    HandshakeAdmissionOptions options;
    options.max_pending_per_source = 2;
    options.secret_period_ms = 1000;
    auto made = HandshakeAdmission::Create(options, 0);
    ASSERT_TRUE(made.ok());
    admission_.emplace(std::move(made).value());
  }

  Verdict Judge(const std::vector<uint8_t>& datagram, const sockaddr_in& peer,
                int64_t now_ms = 0) {
    return admission_->Judge(datagram.data(), datagram.size(),
                             reinterpret_cast<const sockaddr*>(&peer),
                             sizeof(peer), now_ms, reply_);
  }
  std::vector<uint8_t> Reply() const {
    return std::vector<uint8_t>(reply_.begin(), reply_.end());
  }
  // The cookie this admission hands `peer`.
  std::vector<uint8_t> CookieFor(const sockaddr_in& peer, int64_t now_ms = 0) {
    EXPECT_EQ(Judge(ClientHello({}, 0, 0), peer, now_ms), Verdict::kAnswer);
    return CookieOf(Reply());
  }
  // libcoap made a session for the ClientHello just passed.
  void SessionNew(const sockaddr_in& peer) {
    admission_->OnSessionNew(reinterpret_cast<const sockaddr*>(&peer),
                             sizeof(peer));
  }

  std::optional<HandshakeAdmission> admission_;
  std::array<uint8_t, HandshakeAdmission::kReplySize> reply_{};
};

TEST_F(HandshakeAdmissionTest, ClientHelloWithoutCookieGetsAVerifyRequest) {
  const sockaddr_in peer = Peer(0x0A000001, 40000);
  const std::vector<uint8_t> hello = ClientHello({}, 0, 5);
  ASSERT_EQ(Judge(hello, peer), Verdict::kAnswer);
  const std::vector<uint8_t> r = Reply();
  // Record: handshake, DTLS 1.0, epoch 0, the ClientHello's sequence number.
  EXPECT_EQ(r[0], 22);
  EXPECT_EQ(r[1], 0xfe);
  EXPECT_EQ(r[2], 0xff);
  EXPECT_EQ(std::vector<uint8_t>(r.begin() + 3, r.begin() + 11),
            std::vector<uint8_t>(hello.begin() + 3, hello.begin() + 11));
  EXPECT_EQ(size_t{r[11]} << 8 | r[12], r.size() - 13);
  // hello_verify_request, unfragmented, message_seq of the ClientHello.
  EXPECT_EQ(r[13], 3);
  EXPECT_EQ(r[17], 0);
  EXPECT_EQ(r[18], 0);
  EXPECT_EQ(CookieOf(r).size(), HandshakeAdmission::kCookieSize);
  EXPECT_EQ(admission_->counts().verify_requests, 1u);
  EXPECT_EQ(admission_->pending(), 0u);  // nothing kept
}

TEST_F(HandshakeAdmissionTest, OnlyItsOwnAddressesCookiePasses) {
  const sockaddr_in peer = Peer(0x0A000001, 40000);
  const std::vector<uint8_t> cookie = CookieFor(peer);
  EXPECT_EQ(Judge(ClientHello(cookie, 1, 1), peer), Verdict::kPass);
  EXPECT_TRUE(
      HandshakeAdmission::VerifyPassedCookie(cookie.data(), cookie.size()));
  // Another port or address with that cookie: a new verify request.
  EXPECT_EQ(Judge(ClientHello(cookie, 1, 1), Peer(0x0A000001, 40001)),
            Verdict::kAnswer);
  EXPECT_FALSE(
      HandshakeAdmission::VerifyPassedCookie(cookie.data(), cookie.size()));
  EXPECT_EQ(Judge(ClientHello(cookie, 1, 1), Peer(0x0A000002, 40000)),
            Verdict::kAnswer);
  // A forged cookie neither.
  std::vector<uint8_t> forged = cookie;
  forged.back() ^= 1;
  EXPECT_EQ(Judge(ClientHello(forged, 1, 1), peer), Verdict::kAnswer);
}

// Only what DTLSv1_listen takes passes: libcoap keeps the session it makes
// for a ClientHello that DTLSv1_listen refuses and feeds it the address's
// every later datagram (the address would be locked out). A client that
// took a stray HelloVerifyRequest for its own sends message_seq 2.
TEST_F(HandshakeAdmissionTest, ACookieHelloThatDtlsListenRefusesIsDropped) {
  const sockaddr_in peer = Peer(0x0A000001, 40000);
  const std::vector<uint8_t> cookie = CookieFor(peer);
  std::vector<uint8_t> bad_version = ClientHello(cookie, 1, 1);
  bad_version[1] = 0x03;  // a TLS record version
  std::vector<uint8_t> long_record = ClientHello(cookie, 1, 1);
  long_record[12] += 1;  // the record claims a byte the message lacks
  std::vector<uint8_t> cut = ClientHello(cookie, 1, 1);
  cut.pop_back();  // the record runs past the datagram
  for (const auto& refused :
       {ClientHello(cookie, 2, 2), bad_version, long_record, cut}) {
    EXPECT_EQ(Judge(refused, peer), Verdict::kDrop);
    EXPECT_FALSE(
        HandshakeAdmission::VerifyPassedCookie(cookie.data(), cookie.size()));
  }
  EXPECT_EQ(admission_->counts().dropped, 4u);
  EXPECT_EQ(admission_->counts().passed_hellos, 0u);
  // Not spent by them: the client's next ClientHello (message_seq 1) passes.
  EXPECT_EQ(Judge(ClientHello(cookie, 1, 3), peer), Verdict::kPass);
  // Without a cookie, message_seq 2 gets no answer either.
  EXPECT_EQ(Judge(ClientHello({}, 2, 4), Peer(0x0A000002, 40000)),
            Verdict::kDrop);
}

TEST_F(HandshakeAdmissionTest, CookiesExpireWithTheSecret) {
  const sockaddr_in peer = Peer(0x0A000001, 40000);
  const std::vector<uint8_t> cookie = CookieFor(peer, 0);
  // Valid through the next period (the previous secret is kept) ...
  EXPECT_EQ(Judge(ClientHello(cookie, 1, 1), peer, 1500), Verdict::kPass);
  // ... not after the one after.
  EXPECT_EQ(Judge(ClientHello(cookie, 1, 1), peer, 2600), Verdict::kAnswer);
}

TEST_F(HandshakeAdmissionTest, KnownAddressesPassAndOthersAreDropped) {
  const sockaddr_in peer = Peer(0x0A000001, 40000);
  const std::vector<uint8_t> record = {23, 0xfe, 0xfd, 0, 1, 0, 0,
                                       0,  0,    0,    7, 0, 0};
  // Application data from an address libcoap knows nothing of: dropped.
  EXPECT_EQ(Judge(record, peer), Verdict::kDrop);
  EXPECT_EQ(Judge({}, peer), Verdict::kDrop);
  EXPECT_EQ(Judge({22, 0xfe}, peer), Verdict::kDrop);
  std::vector<uint8_t> truncated = ClientHello({}, 0, 0);
  truncated.resize(13 + 12 + 10);
  EXPECT_EQ(Judge(truncated, peer), Verdict::kDrop);
  std::vector<uint8_t> fragment = ClientHello({}, 0, 0);
  fragment[13 + 8] = 1;  // fragment_offset 1
  EXPECT_EQ(Judge(fragment, peer), Verdict::kDrop);
  // Once libcoap has a session for it, everything passes (libcoap judges).
  SessionNew(peer);
  EXPECT_EQ(Judge(record, peer), Verdict::kPass);
  // A datagram of a known session passes but admits no handshake.
  EXPECT_EQ(admission_->counts().passed_hellos, 0u);
  EXPECT_EQ(admission_->counts().dropped, 5u);
  admission_->OnSessionFreed(reinterpret_cast<const sockaddr*>(&peer),
                             sizeof(peer));
  EXPECT_EQ(Judge(record, peer), Verdict::kDrop);
}

TEST_F(HandshakeAdmissionTest, ASourceHasAtMostItsHandshakesInProgress) {
  // Two handshakes from 10.0.0.1 in progress (the limit here) ...
  for (uint16_t port : {40000, 40001}) {
    const sockaddr_in peer = Peer(0x0A000001, port);
    const std::vector<uint8_t> cookie = CookieFor(peer);
    ASSERT_EQ(Judge(ClientHello(cookie, 1, 1), peer), Verdict::kPass);
    SessionNew(peer);
  }
  EXPECT_EQ(admission_->pending(), 2u);
  EXPECT_EQ(admission_->counts().passed_hellos, 2u);
  // ... so a third is dropped, while another source still gets through.
  const sockaddr_in third = Peer(0x0A000001, 40002);
  const std::vector<uint8_t> cookie = CookieFor(third);
  EXPECT_EQ(Judge(ClientHello(cookie, 1, 1), third), Verdict::kDrop);
  EXPECT_EQ(admission_->counts().over_limit, 1u);
  const sockaddr_in other = Peer(0x0A000002, 40000);
  EXPECT_EQ(Judge(ClientHello(CookieFor(other), 1, 1), other), Verdict::kPass);
  // One handshake ends (established): the third gets its turn.
  const sockaddr_in first = Peer(0x0A000001, 40000);
  admission_->OnHandshakeEnded(reinterpret_cast<const sockaddr*>(&first),
                               sizeof(first));
  EXPECT_EQ(Judge(ClientHello(cookie, 1, 1), third), Verdict::kPass);
}

sockaddr_in6 Peer6(uint64_t prefix, uint64_t host, uint16_t port) {
  sockaddr_in6 a{};
  a.sin6_family = AF_INET6;
  for (int i = 0; i < 8; ++i) {
    a.sin6_addr.s6_addr[i] = static_cast<uint8_t>(prefix >> (56 - 8 * i));
    a.sin6_addr.s6_addr[8 + i] = static_cast<uint8_t>(host >> (56 - 8 * i));
  }
  a.sin6_port = htons(port);
  return a;
}

// An admission with its own limits; `Start` runs one handshake to its
// session (a valid cookie, passed, libcoap's session made).
class AdmissionLimitsTest : public ::testing::Test {
 protected:
  void Make(int per_source, int max_pending, int max_sessions) {
    HandshakeAdmissionOptions options;
    options.max_pending_per_source = per_source;
    options.max_pending = max_pending;
    options.max_sessions = max_sessions;
    auto made = HandshakeAdmission::Create(options, 0);
    ASSERT_TRUE(made.ok());
    admission_.emplace(std::move(made).value());
  }
  template <typename Address>
  Verdict Start(const Address& peer, int64_t now_ms = 0) {
    const auto* sa = reinterpret_cast<const sockaddr*>(&peer);
    const std::vector<uint8_t> hello = ClientHello({}, 0, 0);
    EXPECT_EQ(admission_->Judge(hello.data(), hello.size(), sa, sizeof(peer),
                                now_ms, reply_),
              Verdict::kAnswer);
    const std::vector<uint8_t> cookie =
        CookieOf(std::vector<uint8_t>(reply_.begin(), reply_.end()));
    const std::vector<uint8_t> again = ClientHello(cookie, 1, 1);
    const Verdict v = admission_->Judge(again.data(), again.size(), sa,
                                        sizeof(peer), now_ms, reply_);
    if (v == Verdict::kPass) admission_->OnSessionNew(sa, sizeof(peer));
    return v;
  }
  std::optional<HandshakeAdmission> admission_;
  std::array<uint8_t, HandshakeAdmission::kReplySize> reply_{};
};

TEST_F(HandshakeAdmissionTest, ACookiePassesOnce) {
  const sockaddr_in peer = Peer(0x0A000001, 40000);
  const std::vector<uint8_t> cookie = CookieFor(peer);
  ASSERT_EQ(Judge(ClientHello(cookie, 1, 1), peer), Verdict::kPass);
  // No session came of it (libcoap dropped it): the replay is refused.
  EXPECT_EQ(Judge(ClientHello(cookie, 1, 1), peer), Verdict::kDrop);
  EXPECT_EQ(admission_->counts().replays, 1u);
  // The client starting over (a new random) gets a new cookie, which passes.
  EXPECT_EQ(Judge(ClientHello({}, 0, 0, /*random_seed=*/1), peer),
            Verdict::kAnswer);
  const std::vector<uint8_t> fresh = CookieOf(Reply());
  EXPECT_NE(fresh, cookie);
  EXPECT_EQ(Judge(ClientHello(fresh, 1, 1, /*random_seed=*/1), peer),
            Verdict::kPass);
  // A cookie belongs to its ClientHello's random.
  EXPECT_EQ(Judge(ClientHello(fresh, 1, 1, /*random_seed=*/2), peer),
            Verdict::kAnswer);
}

TEST_F(AdmissionLimitsTest, AnIpv6Slash64IsOneSource) {
  Make(/*per_source=*/2, /*max_pending=*/100, /*max_sessions=*/0);
  EXPECT_EQ(Start(Peer6(0x20010db800000001, 1, 5000)), Verdict::kPass);
  EXPECT_EQ(Start(Peer6(0x20010db800000001, 2, 5000)), Verdict::kPass);
  // Another host of the same /64: over its limit.
  EXPECT_EQ(Start(Peer6(0x20010db800000001, 3, 5000)), Verdict::kDrop);
  EXPECT_EQ(admission_->counts().over_limit, 1u);
  // The next /64 is another source.
  EXPECT_EQ(Start(Peer6(0x20010db800000002, 3, 5000)), Verdict::kPass);
}

std::string KeyOf(const sockaddr_in& peer) {
  return HandshakeAdmission::PeerKey(reinterpret_cast<const sockaddr*>(&peer),
                                     sizeof(peer));
}

TEST_F(AdmissionLimitsTest, ANewcomerTakesThePlaceOfTheBusiestSource) {
  Make(/*per_source=*/5, /*max_pending=*/8, /*max_sessions=*/0);
  // Two flooding sources fill every place.
  for (uint16_t port = 1; port <= 4; ++port) {
    ASSERT_EQ(Start(Peer(0x0A000001, port)), Verdict::kPass);
    ASSERT_EQ(Start(Peer(0x0A000002, port)), Verdict::kPass);
  }
  // A flooder's next handshake finds no room and evicts nobody: sources at
  // an even share do not take places from each other.
  EXPECT_EQ(Start(Peer(0x0A000001, 9)), Verdict::kDrop);
  EXPECT_EQ(admission_->counts().over_capacity, 1u);
  EXPECT_TRUE(admission_->TakeEvictions().empty());
  // A newcomer waits while those handshakes may still be progressing ...
  const int64_t stalled = HandshakeAdmissionOptions{}.evict_after_ms;
  EXPECT_EQ(Start(Peer(0x0A000003, 1), stalled - 1), Verdict::kDrop);
  EXPECT_EQ(admission_->counts().over_capacity, 2u);
  EXPECT_TRUE(admission_->TakeEvictions().empty());
  // ... and then gets in: the oldest handshake of a busiest source goes.
  EXPECT_EQ(Start(Peer(0x0A000003, 2), stalled), Verdict::kPass);
  const std::vector<std::string> evicted = admission_->TakeEvictions();
  ASSERT_EQ(evicted.size(), 1u);
  EXPECT_TRUE(evicted[0] == KeyOf(Peer(0x0A000001, 1)) ||
              evicted[0] == KeyOf(Peer(0x0A000002, 1)));
  EXPECT_EQ(admission_->pending(), 8u);
  // The flooder that lost a place cannot take it back from the other.
  const uint32_t loser =
      evicted[0] == KeyOf(Peer(0x0A000001, 1)) ? 0x0A000001 : 0x0A000002;
  EXPECT_EQ(Start(Peer(loser, 10), stalled), Verdict::kDrop);
  EXPECT_EQ(admission_->counts().over_capacity, 3u);
}

TEST_F(AdmissionLimitsTest, EstablishedSessionsAreNeverEvicted) {
  Make(/*per_source=*/4, /*max_pending=*/100, /*max_sessions=*/3);
  const sockaddr_in device = Peer(0x0A000009, 1);
  ASSERT_EQ(Start(device), Verdict::kPass);
  admission_->OnHandshakeEnded(reinterpret_cast<const sockaddr*>(&device),
                               sizeof(device));  // established
  ASSERT_EQ(Start(Peer(0x0A000001, 1)), Verdict::kPass);
  ASSERT_EQ(Start(Peer(0x0A000001, 2)), Verdict::kPass);
  // Full: half-open handshakes evict each other at most, never the device.
  EXPECT_EQ(Start(Peer(0x0A000001, 3)), Verdict::kDrop);
  const int64_t stalled = HandshakeAdmissionOptions{}.evict_after_ms;
  EXPECT_EQ(Start(Peer(0x0A000002, 1), stalled),
            Verdict::kPass);  // evicts 10.0.0.1:1
  const std::vector<std::string> evicted = admission_->TakeEvictions();
  ASSERT_EQ(evicted.size(), 1u);
  EXPECT_EQ(evicted[0], KeyOf(Peer(0x0A000001, 1)));
}

TEST_F(HandshakeAdmissionTest, AllSourcesHaveAtMostMaxPendingInProgress) {
  HandshakeAdmissionOptions options;
  options.max_pending = 3;
  auto made = HandshakeAdmission::Create(options, 0);
  ASSERT_TRUE(made.ok());
  admission_.emplace(std::move(made).value());
  // Three sources, one handshake each: the cap, exactly.
  for (uint32_t ip : {0x0A000001u, 0x0A000002u, 0x0A000003u}) {
    const sockaddr_in peer = Peer(ip, 40000);
    ASSERT_EQ(Judge(ClientHello(CookieFor(peer), 1, 1), peer), Verdict::kPass);
    SessionNew(peer);
  }
  const sockaddr_in fourth = Peer(0x0A000004, 40000);
  const std::vector<uint8_t> cookie = CookieFor(fourth);
  EXPECT_EQ(Judge(ClientHello(cookie, 1, 1), fourth), Verdict::kDrop);
  // (No eviction: every source holds one, an even share.)
  EXPECT_EQ(admission_->counts().over_capacity, 1u);
  EXPECT_EQ(admission_->pending(), 3u);
  const sockaddr_in first = Peer(0x0A000001, 40000);
  admission_->OnHandshakeEnded(reinterpret_cast<const sockaddr*>(&first),
                               sizeof(first));
  EXPECT_EQ(Judge(ClientHello(cookie, 1, 1), fourth), Verdict::kPass);
}

}  // namespace
}  // namespace edgeadmm::server
