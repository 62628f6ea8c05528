// The SDK's own CoAP client (edgeadmm/coap/coap_client.h) as a Transport
// against Debian's coap-server-openssl (libcoap 4.3.1) over plain UDP on
// loopback, through the POSIX UdpDatagramLink: piggybacked responses,
// Block1 upload and Block2 download, Observe notifications, a lost
// datagram recovered by retransmission, a vanished server reported.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "coap_server_process.h"
#include "edgeadmm/coap/coap_client.h"
#include "edgeadmm/posix/monotonic_clock.h"
#include "edgeadmm/posix/udp_datagram_link.h"
#include "udp_relay.h"

namespace edgeadmm::coap {
namespace {

uint64_t NowMs() { return posix::MonotonicMs(); }

class CoapClientInteropTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = std::make_unique<testing::CoapServerProcess>(
        std::vector<testing::PskEntry>{{"client", "client-key"}}, "unused-key");
    ASSERT_TRUE(server_->running());
  }

  // A client on `port` (the server's, or a relay's in front of it).
  void Connect(uint16_t port) {
    ASSERT_TRUE(link_.Open("127.0.0.1", port).ok());
    CoapClientConfig c;
    c.link = &link_;
    c.now_ms = &NowMs;
    c.tx_buffer = ByteSpan(tx_, sizeof(tx_));
    c.rx_buffer = ByteSpan(rx_, sizeof(rx_));
    c.ack_timeout_ms = 1000;
    c.seed = 7;
    client_ = std::make_unique<CoapClient>(c);
  }

  TransportResult Call(CoapMethod method, const char* path,
                       ConstByteSpan payload = {}, uint16_t format = 0) {
    TransportRequest request;
    request.method = method;
    request.path = path;
    request.payload = payload;
    request.content_format = format;
    TransportResult result;
    client_->Request(request, ByteSpan(body_, sizeof(body_)), 20000, result)
        .IgnoreError();  // the outcome is result.status
    return result;
  }
  std::string Body(const TransportResult& r) const {
    return std::string(reinterpret_cast<const char*>(body_), r.payload_size);
  }

  std::unique_ptr<testing::CoapServerProcess> server_;
  posix::UdpDatagramLink link_;
  std::unique_ptr<CoapClient> client_;
  std::byte tx_[1200];
  std::byte rx_[1200];
  std::byte body_[8192];
};

TEST_F(CoapClientInteropTest, GetAnsweredPiggybacked) {
  ASSERT_NO_FATAL_FAILURE(Connect(server_->udp_port()));
  const TransportResult r = Call(CoapMethod::kGet, ".well-known/core");
  ASSERT_TRUE(r.status.ok()) << r.status.str();
  EXPECT_EQ(r.code, (2 << 5) | 5);
  EXPECT_EQ(r.content_format, 40);
  EXPECT_NE(Body(r).find("</example_data>"), std::string::npos) << Body(r);
  EXPECT_EQ(client_->retransmissions(), 0u);
}

TEST_F(CoapClientInteropTest, Block1UploadAndBlock2Download) {
  ASSERT_NO_FATAL_FAILURE(Connect(server_->udp_port()));
  uint8_t data[3000];
  for (size_t i = 0; i < sizeof(data); ++i)
    data[i] = static_cast<uint8_t>(i * 31);
  const TransportResult put = Call(
      CoapMethod::kPut, "example_data",
      ConstByteSpan(reinterpret_cast<const std::byte*>(data), sizeof(data)),
      42);
  ASSERT_TRUE(put.status.ok()) << put.status.str();
  EXPECT_TRUE(put.code == ((2 << 5) | 1) || put.code == ((2 << 5) | 4))
      << int{put.code};
  const TransportResult get = Call(CoapMethod::kGet, "example_data");
  ASSERT_TRUE(get.status.ok()) << get.status.str();
  EXPECT_EQ(get.code, (2 << 5) | 5);
  ASSERT_EQ(get.payload_size, sizeof(data));
  EXPECT_EQ(std::memcmp(body_, data, sizeof(data)), 0);
}

TEST_F(CoapClientInteropTest, ObserveGetsNotifications) {
  ASSERT_NO_FATAL_FAILURE(Connect(server_->udp_port()));
  // "time" is observable and changes every second.
  ASSERT_TRUE(
      client_->StartObserve("time", ByteSpan(body_, sizeof(body_))).ok());
  // The registration's answer and then one notification per change: three
  // different bodies (the server's clock) within 8 s.
  std::vector<std::string> bodies;
  const uint64_t start = NowMs();
  while (bodies.size() < 3 && NowMs() - start < 8000) {
    ASSERT_TRUE(client_->Poll(100).ok());
    TransportResult r;
    while (client_->TakeNotification(r)) {
      ASSERT_TRUE(r.status.ok()) << r.status.str();
      EXPECT_EQ(r.code, (2 << 5) | 5);
      if (bodies.empty() || Body(r) != bodies.back()) bodies.push_back(Body(r));
    }
  }
  ASSERT_EQ(bodies.size(), 3u);
  std::printf("notifications after %llu ms: %s | %s | %s\n",
              static_cast<unsigned long long>(NowMs() - start),
              bodies[0].c_str(), bodies[1].c_str(), bodies[2].c_str());
  client_->StopObserve();
}

TEST_F(CoapClientInteropTest, LostRequestIsRetransmitted) {
  testing::UdpRelay relay(server_->udp_port());
  ASSERT_TRUE(relay.ok());
  relay.DropExactly({1}, {});  // the first request never arrives
  ASSERT_NO_FATAL_FAILURE(Connect(relay.port()));
  const TransportResult r = Call(CoapMethod::kGet, ".well-known/core");
  ASSERT_TRUE(r.status.ok()) << r.status.str();
  EXPECT_EQ(r.code, (2 << 5) | 5);
  EXPECT_EQ(client_->retransmissions(), 1u);
  EXPECT_EQ(relay.counts().dropped, 1u);
}

TEST_F(CoapClientInteropTest, VanishedServerIsReported) {
  auto relay = std::make_unique<testing::UdpRelay>(server_->udp_port());
  ASSERT_TRUE(relay->ok());
  ASSERT_NO_FATAL_FAILURE(Connect(relay->port()));
  ASSERT_TRUE(Call(CoapMethod::kGet, ".well-known/core").status.ok());
  relay.reset();  // the port closes: ICMP port unreachable
  const TransportResult r = Call(CoapMethod::kGet, ".well-known/core");
  EXPECT_EQ(r.status, Status::Unavailable()) << r.status.str();
}

}  // namespace
}  // namespace edgeadmm::coap
