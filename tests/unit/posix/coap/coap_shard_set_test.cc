// CoapShardSet against two in-process libcoap contexts (plain CoAP over
// UDP on 127.0.0.1): a datagram for one shard gives no pass to the other,
// and an idle shard still retransmits a confirmable message when libcoap's
// timer says so (its timer fd wakes the shard; no periodic walk runs).
#include "edgeadmm/posix/coap_shard_set.h"

#include <arpa/inet.h>
#include <coap3/coap.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <memory>

#include "coap_udp_loopback.h"
#include "edgeadmm/posix/coap_batched_io.h"

namespace edgeadmm::posix {
namespace {

using coap_loopback::HandledRequests;

coap_address_t Loopback(uint16_t port) {
  coap_address_t address;
  coap_address_init(&address);
  address.addr.sin.sin_family = AF_INET;
  address.addr.sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.addr.sin.sin_port = htons(port);
  address.size = sizeof(address.addr.sin);
  return address;
}

class CoapShardSetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    coap_startup();
    HandledRequests() = 0;
    CoapBatchedIoOptions options;
    options.max_endpoint_reads = 16;
    // No periodic walk within the test: only readiness runs a shard.
    options.walk_interval_ms = 3600 * 1000;
    for (size_t i = 0; i < kShards; ++i) {
      contexts_[i] = coap_loopback::NewLoopbackUdpContext(&ports_[i]);
      ASSERT_NE(contexts_[i], nullptr);
      ios_[i] = std::make_unique<CoapBatchedIo>(contexts_[i], options);
      ASSERT_GE(ios_[i]->epoll_fd(), 0) << "libcoap without epoll";
      ASSERT_TRUE(set_.Add(contexts_[i], ios_[i].get()));
    }
    peer_ = socket(AF_INET, SOCK_DGRAM, 0);
    ASSERT_GE(peer_, 0);
    sockaddr_in own{};
    own.sin_family = AF_INET;
    own.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(bind(peer_, reinterpret_cast<const sockaddr*>(&own), sizeof(own)),
              0);
    timeval wait{5, 0};
    setsockopt(peer_, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof(wait));
    // The first pass walks every shard once (arming its timer fd).
    ASSERT_EQ(set_.RunOnce(0), static_cast<int>(kShards));
  }
  void TearDown() override {
    if (peer_ >= 0) close(peer_);
    for (auto& io : ios_) io.reset();
    for (coap_context_t* context : contexts_) {
      if (context != nullptr) coap_free_context(context);
    }
  }

  // Sends one NON GET t with message id `mid` to shard `shard`.
  void SendRequest(size_t shard, uint16_t mid) {
    ASSERT_TRUE(coap_loopback::SendNonGet(peer_, ports_[shard], mid));
  }

  // The message id of the next datagram the peer receives, -1 if none.
  int ReceiveMid(int flags) {
    uint8_t buffer[256];
    const ssize_t n = recv(peer_, buffer, sizeof(buffer), flags);
    if (n < 4) return -1;
    return (buffer[2] << 8) | buffer[3];
  }

  static constexpr size_t kShards = 2;
  std::array<coap_context_t*, kShards> contexts_{};
  std::array<std::unique_ptr<CoapBatchedIo>, kShards> ios_;
  std::array<uint16_t, kShards> ports_{};
  CoapShardSet set_;
  int peer_ = -1;
};

TEST_F(CoapShardSetTest, DatagramsForOneShardLeaveTheOtherAlone) {
  const uint64_t idle_passes = set_.passes(1);
  const uint64_t idle_walks = ios_[1]->walks();
  constexpr int kRequests = 50;
  for (int i = 0; i < kRequests; ++i) {
    SendRequest(0, static_cast<uint16_t>(i));
    // Wait for the datagram's own pass (the shard becomes ready).
    for (int pass = 0; pass < 100 && HandledRequests() == i; ++pass) {
      ASSERT_GE(set_.RunOnce(1000), 0);
    }
    ASSERT_EQ(HandledRequests(), i + 1);
    ASSERT_GE(ReceiveMid(0), 0);  // the response
  }
  EXPECT_GE(set_.passes(0), static_cast<uint64_t>(kRequests));
  // Every pass went to the busy shard: none to the idle one, no walk of it.
  EXPECT_EQ(set_.passes(1), idle_passes);
  EXPECT_EQ(ios_[1]->walks(), idle_walks);
}

TEST_F(CoapShardSetTest, IdleShardRetransmitsWhenItsTimerIsDue) {
  // A confirmable request from shard 1 to the peer, which never answers.
  sockaddr_in bound{};
  socklen_t size = sizeof(bound);
  ASSERT_EQ(getsockname(peer_, reinterpret_cast<sockaddr*>(&bound), &size), 0);
  const coap_address_t to = Loopback(ntohs(bound.sin_port));
  coap_session_t* session =
      coap_new_client_session(contexts_[1], nullptr, &to, COAP_PROTO_UDP);
  ASSERT_NE(session, nullptr);
  // The shortest libcoap takes: 1 s, no random factor.
  coap_session_set_ack_timeout(session, coap_fixed_point_t{1, 0});
  coap_session_set_ack_random_factor(session, coap_fixed_point_t{1, 0});
  coap_pdu_t* pdu =
      coap_new_pdu(COAP_MESSAGE_CON, COAP_REQUEST_CODE_GET, session);
  ASSERT_NE(pdu, nullptr);
  const coap_mid_t mid = coap_send(session, pdu);
  ASSERT_NE(mid, COAP_INVALID_MID);
  ASSERT_EQ(ReceiveMid(0), mid);  // sent at once, no pass needed
  const uint64_t busy_passes = set_.passes(0);
  const uint64_t idle_passes = set_.passes(1);
  // Nothing reaches shard 1's socket: only its timer can wake it.
  int copy = -1;
  for (int pass = 0; pass < 100 && copy < 0; ++pass) {
    ASSERT_GE(set_.RunOnce(1000), 0);
    copy = ReceiveMid(MSG_DONTWAIT);
  }
  EXPECT_EQ(copy, mid);  // the retransmission
  EXPECT_GT(set_.passes(1), idle_passes);
  EXPECT_EQ(set_.passes(0), busy_passes);
  coap_session_release(session);
}

}  // namespace
}  // namespace edgeadmm::posix
