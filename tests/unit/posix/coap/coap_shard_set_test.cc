// CoapShardSet against two in-process libcoap contexts (plain CoAP over
// UDP on 127.0.0.1): a datagram for one shard gives no pass to the other,
// and an idle shard still retransmits a confirmable message when libcoap's
// timer says so (its timer fd wakes the shard; no periodic walk runs). With
// two threads the two shards' handlers run at the same time, each shard on
// its own thread, and one shard's requests are handled in their order.
#include "edgeadmm/posix/coap_shard_set.h"

#include <arpa/inet.h>
#include <coap3/coap.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

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
  // The threads that run the set's passes.
  virtual size_t Threads() const { return 1; }
  // Adds the fixture's own resources to a shard's context.
  virtual void AddResources(coap_context_t*) {}

  void SetUp() override {
    coap_startup();
    set_ = std::make_unique<CoapShardSet>(Threads());
    HandledRequests() = 0;
    CoapBatchedIoOptions options;
    options.max_endpoint_reads = 16;
    // No periodic walk within the test: only readiness runs a shard.
    options.walk_interval_ms = 3600 * 1000;
    for (size_t i = 0; i < kShards; ++i) {
      contexts_[i] = coap_loopback::NewLoopbackUdpContext(&ports_[i]);
      ASSERT_NE(contexts_[i], nullptr);
      AddResources(contexts_[i]);
      ios_[i] = std::make_unique<CoapBatchedIo>(contexts_[i], options);
      ASSERT_GE(ios_[i]->epoll_fd(), 0) << "libcoap without epoll";
      ASSERT_TRUE(set_->Add(contexts_[i], ios_[i].get()));
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
    ASSERT_EQ(set_->RunOnce(0), static_cast<int>(kShards));
  }
  void TearDown() override {
    if (peer_ >= 0) close(peer_);
    set_.reset();
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
  std::unique_ptr<CoapShardSet> set_;
  int peer_ = -1;
};

TEST_F(CoapShardSetTest, DatagramsForOneShardLeaveTheOtherAlone) {
  const uint64_t idle_passes = set_->passes(1);
  const uint64_t idle_walks = ios_[1]->walks();
  constexpr int kRequests = 50;
  for (int i = 0; i < kRequests; ++i) {
    SendRequest(0, static_cast<uint16_t>(i));
    // Wait for the datagram's own pass (the shard becomes ready).
    for (int pass = 0; pass < 100 && HandledRequests() == i; ++pass) {
      ASSERT_GE(set_->RunOnce(1000), 0);
    }
    ASSERT_EQ(HandledRequests(), i + 1);
    ASSERT_GE(ReceiveMid(0), 0);  // the response
  }
  EXPECT_GE(set_->passes(0), static_cast<uint64_t>(kRequests));
  // Every pass went to the busy shard: none to the idle one, no walk of it.
  EXPECT_EQ(set_->passes(1), idle_passes);
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
  const uint64_t busy_passes = set_->passes(0);
  const uint64_t idle_passes = set_->passes(1);
  // Nothing reaches shard 1's socket: only its timer can wake it.
  int copy = -1;
  for (int pass = 0; pass < 100 && copy < 0; ++pass) {
    ASSERT_GE(set_->RunOnce(1000), 0);
    copy = ReceiveMid(MSG_DONTWAIT);
  }
  EXPECT_EQ(copy, mid);  // the retransmission
  EXPECT_GT(set_->passes(1), idle_passes);
  EXPECT_EQ(set_->passes(0), busy_passes);
  coap_session_release(session);
}

// Requests to "w": each handler records its thread and message id, and the
// first one waits (at most 5 s) until a second one runs beside it.
struct Meeting {
  std::mutex mutex;
  std::condition_variable arrived;
  int inside = 0;
  bool met = false;
  // (context, message id, thread) of every handled request, in order.
  struct Visit {
    coap_context_t* context;
    int mid;
    std::thread::id thread;
  };
  std::vector<Visit> visits;
  bool wait_for_partner = false;
};

Meeting& TheMeeting() {
  static Meeting meeting;
  return meeting;
}

void MeetingGet(coap_resource_t*, coap_session_t* session,
                const coap_pdu_t* request, const coap_string_t*,
                coap_pdu_t* response) {
  Meeting& m = TheMeeting();
  std::unique_lock<std::mutex> lock(m.mutex);
  m.visits.push_back({coap_session_get_context(session),
                      coap_pdu_get_mid(request), std::this_thread::get_id()});
  if (m.wait_for_partner) {
    ++m.inside;
    m.arrived.notify_all();
    m.met = m.arrived.wait_for(lock, std::chrono::seconds(5),
                               [&] { return m.inside >= 2; });
  }
  coap_pdu_set_code(response, COAP_RESPONSE_CODE_CONTENT);
}

class CoapShardSetThreadsTest : public CoapShardSetTest {
 protected:
  size_t Threads() const override { return 2; }
  void AddResources(coap_context_t* context) override {
    coap_resource_t* r = coap_resource_init(coap_make_str_const("w"), 0);
    coap_register_handler(r, COAP_REQUEST_GET, &MeetingGet);
    coap_add_resource(context, r);
  }
  void SetUp() override {
    Meeting& m = TheMeeting();
    m.visits.clear();
    m.inside = 0;
    m.met = false;
    m.wait_for_partner = false;
    CoapShardSetTest::SetUp();
  }

  // Sends NON GET /w with message id `mid` to shard `shard`.
  void SendMeetingRequest(size_t shard, uint16_t mid) {
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    to.sin_port = htons(ports_[shard]);
    const uint8_t datagram[] = {
        0x50, 0x01, static_cast<uint8_t>(mid >> 8), static_cast<uint8_t>(mid),
        0xb1, 'w'};
    ASSERT_EQ(sendto(peer_, datagram, sizeof(datagram), 0,
                     reinterpret_cast<const sockaddr*>(&to), sizeof(to)),
              static_cast<ssize_t>(sizeof(datagram)));
  }

  // Waits (at most 5 s) until shard `shard` has a datagram to read.
  bool WaitReadable(size_t shard) {
    pollfd ready{ios_[shard]->epoll_fd(), POLLIN, 0};
    return poll(&ready, 1, 5000) == 1;
  }
};

TEST_F(CoapShardSetThreadsTest, TwoShardsAreHandledAtOnceOnTwoThreads) {
  ASSERT_EQ(set_->threads(), 2u);
  TheMeeting().wait_for_partner = true;
  SendMeetingRequest(0, 1);
  SendMeetingRequest(1, 2);
  ASSERT_TRUE(WaitReadable(0));
  ASSERT_TRUE(WaitReadable(1));
  // One RunOnce passes both: each handler waits for the other, so they
  // meet only if the two passes run at the same time.
  ASSERT_EQ(set_->RunOnce(0), 2);
  Meeting& m = TheMeeting();
  EXPECT_TRUE(m.met) << "the second shard's handler never ran beside the "
                        "first's";
  ASSERT_EQ(m.visits.size(), 2u);
  EXPECT_NE(m.visits[0].thread, m.visits[1].thread);
  EXPECT_EQ(set_->last_thread(0), std::this_thread::get_id());
  EXPECT_NE(set_->last_thread(1), std::this_thread::get_id());
}

TEST_F(CoapShardSetThreadsTest, OneShardsRequestsStayInOrderOnOneThread) {
  constexpr int kRequests = 200;
  for (int i = 0; i < kRequests; ++i) {
    // Bursts of four, so that passes read several datagrams at once.
    SendMeetingRequest(1, static_cast<uint16_t>(i));
    if (i % 4 != 3) continue;
    const size_t want = static_cast<size_t>(i + 1);
    for (int pass = 0; pass < 100 && TheMeeting().visits.size() < want;
         ++pass) {
      ASSERT_GE(set_->RunOnce(1000), 0);
    }
    ASSERT_EQ(TheMeeting().visits.size(), want);
  }
  const Meeting& m = TheMeeting();
  for (int i = 0; i < kRequests; ++i) {
    EXPECT_EQ(m.visits[i].mid, i) << "request " << i << " out of order";
    EXPECT_EQ(m.visits[i].context, contexts_[1]);
    EXPECT_EQ(m.visits[i].thread, m.visits[0].thread);
  }
  EXPECT_NE(m.visits[0].thread, std::this_thread::get_id());
  EXPECT_EQ(set_->passes(0), 1u);  // shard 0 only got the first walk
}

}  // namespace
}  // namespace edgeadmm::posix
