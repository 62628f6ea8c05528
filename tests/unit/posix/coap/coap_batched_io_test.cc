// CoapBatchedIo against an in-process libcoap server endpoint (plain CoAP
// over UDP on 127.0.0.1): datagrams queued on the endpoint are handled many
// per libcoap walk, not one (coap_io_process reads one datagram per call,
// and walks every session for each: the daemon's bottleneck with thousands
// of sessions, docs/results.md).
#include "edgeadmm/posix/coap_batched_io.h"

#include <coap3/coap.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>


#include "coap_udp_loopback.h"

namespace edgeadmm::posix {
namespace {

using coap_loopback::HandledRequests;

class CoapBatchedIoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    coap_startup();
    HandledRequests() = 0;
    context_ = coap_loopback::NewLoopbackUdpContext(&port_);
    ASSERT_NE(context_, nullptr);
    client_ = socket(AF_INET, SOCK_DGRAM, 0);
    ASSERT_GE(client_, 0);
    timeval wait{2, 0};
    setsockopt(client_, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof(wait));
  }
  void TearDown() override {
    if (client_ >= 0) close(client_);
    if (context_ != nullptr) coap_free_context(context_);
  }

  // Sends `count` NON GET t requests (distinct message ids) to the endpoint.
  void SendRequests(int count) {
    for (int i = 0; i < count; ++i) {
      ASSERT_TRUE(
          coap_loopback::SendNonGet(client_, port_, static_cast<uint16_t>(i)));
    }
  }

  int Responses(int expected) {
    int received = 0;
    uint8_t buffer[256];
    while (received < expected &&
           recv(client_, buffer, sizeof(buffer), 0) > 0) {
      ++received;
    }
    return received;
  }

  coap_context_t* context_ = nullptr;
  uint16_t port_ = 0;
  int client_ = -1;
};

TEST_F(CoapBatchedIoTest, ReadsManyQueuedDatagramsPerWalk) {
  constexpr int kRequests = 100;
  SendRequests(kRequests);
  CoapBatchedIoOptions options;
  options.max_endpoint_reads = 128;
  CoapBatchedIo io(context_, options);
  const coap_log_t level = coap_get_log_level();
  // The count per endpoint doubles while the endpoint stays ready: 2, 4,
  // ..., 128 datagrams per batch cover 100 requests in at most 7 batches
  // (one each with coap_io_process: 100).
  for (int i = 0; i < 20 && HandledRequests() < kRequests; ++i) {
    ASSERT_GE(io.Process(100), 0);
  }
  EXPECT_EQ(HandledRequests(), kRequests);
  EXPECT_LE(io.batches(), 7u);
  // The last batch (64) drained the endpoint: halved, not back to 1.
  EXPECT_GE(io.endpoint_reads(), 32u);
  EXPECT_EQ(Responses(kRequests), kRequests);
  // Empty reads of an over-listed endpoint are muted only during a batch.
  EXPECT_EQ(coap_get_log_level(), level);
  // Idle: the count falls back, and a timeout returns without a batch.
  const uint64_t batches = io.batches();
  for (int i = 0; i < 8; ++i) ASSERT_GE(io.Process(1), 0);
  EXPECT_EQ(io.endpoint_reads(), 1u);
  EXPECT_EQ(io.batches(), batches);
}

TEST_F(CoapBatchedIoTest, OneReadPerEventForClientContexts) {
  SendRequests(10);
  CoapBatchedIo io(context_, CoapBatchedIoOptions{});  // max_endpoint_reads 1
  for (int i = 0; i < 40 && HandledRequests() < 10; ++i)
    ASSERT_GE(io.Process(100), 0);
  EXPECT_EQ(HandledRequests(), 10);
  EXPECT_EQ(io.batches(), 10u);
  EXPECT_EQ(Responses(10), 10);
}

TEST_F(CoapBatchedIoTest, WaitsForLaterDatagrams) {
  CoapBatchedIoOptions options;
  options.max_endpoint_reads = 16;
  CoapBatchedIo io(context_, options);
  EXPECT_GE(io.Process(20), 0);  // nothing queued: times out
  EXPECT_EQ(HandledRequests(), 0);
  SendRequests(1);
  for (int i = 0; i < 20 && HandledRequests() == 0; ++i)
    ASSERT_GE(io.Process(100), 0);
  EXPECT_EQ(HandledRequests(), 1);
  EXPECT_EQ(Responses(1), 1);
}

}  // namespace
}  // namespace edgeadmm::posix
