// The MPS2-AN386 firmware on a network: the LAN9118 driver, lwIP and the
// SDK's CoapClient over lwIP UDP against Debian's coap-server-openssl on the
// host (QEMU user networking: 10.0.2.2 is the host's 127.0.0.1). Started by
// run_with_coap_server.py, which passes the server's port on the semihosting
// command line ("<image> <port> [dhcp] [corrupt]"; `corrupt` flips one
// expected byte so the read-back comparison must fail).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

#include "edgeadmm/baremetal/format.h"
#include "edgeadmm/baremetal/stack.h"
#include "edgeadmm/board/board.h"
#include "edgeadmm/board/ethernet.h"
#include "edgeadmm/coap/coap_client.h"
#include "edgeadmm/lwip/network.h"
#include "edgeadmm/lwip/udp_link.h"

namespace edgeadmm {
namespace {

constexpr uint8_t kHost[4] = {10, 0, 2, 2};
constexpr uint8_t kCode205 = (2 << 5) | 5;

struct Options {
  uint16_t port = 0;
  bool dhcp = false;
  bool corrupt = false;
};

Options ParseCommandLine() {
  Options o;
  char line[160];
  if (!board::CommandLine(line, sizeof(line))) return o;
  // Words after the image name (newlib's strtok would link malloc).
  bool first = true;
  for (char* p = line; *p != '\0';) {
    while (*p == ' ') ++p;
    char* word = p;
    while (*p != '\0' && *p != ' ') ++p;
    if (*p == ' ') *p++ = '\0';
    if (*word == '\0' || first) {
      first = false;
      continue;
    }
    if (std::strcmp(word, "dhcp") == 0) {
      o.dhcp = true;
    } else if (std::strcmp(word, "corrupt") == 0) {
      o.corrupt = true;
    } else {
      o.port = static_cast<uint16_t>(std::strtoul(word, nullptr, 10));
    }
  }
  return o;
}

void Print(const char* format, unsigned a, unsigned b = 0, unsigned c = 0,
           unsigned d = 0) {
  char text[128];
  baremetal::Format(text, sizeof(text), format, a, b, c, d);
  board::ConsoleWrite(text);
}

Options options;
lwip::UdpLink link;
std::byte tx[1152];
std::byte rx[1152];
std::byte body[4096];
coap::CoapClient* client = nullptr;
alignas(coap::CoapClient) std::byte client_memory[sizeof(coap::CoapClient)];

// The network and the client, brought up by the first test that needs them.
coap::CoapClient* Client() {
  if (client != nullptr) return client;
  options = ParseCommandLine();
  if (options.port == 0) return nullptr;
  baremetal::EthernetMac* mac = board::Ethernet();
  if (mac == nullptr) return nullptr;
  lwip::NetworkConfig n;
  n.mac = mac;
  n.now_ms = &board::NowMs;
  n.dhcp = options.dhcp;
  if (!lwip::StartNetwork(n).ok() || !lwip::WaitNetworkReady(10000).ok())
    return nullptr;
  uint8_t a[4];
  lwip::NetworkAddress(a);
  Print("network up: %u.%u.%u.%u\n", a[0], a[1], a[2], a[3]);
  if (!link.Open(kHost, options.port).ok()) return nullptr;
  coap::CoapClientConfig c;
  c.link = &link;
  c.now_ms = &board::NowMs;
  c.tx_buffer = ByteSpan(tx, sizeof(tx));
  c.rx_buffer = ByteSpan(rx, sizeof(rx));
  c.ack_timeout_ms = 1000;
  c.seed = 11;
  client = new (client_memory) coap::CoapClient(c);
  return client;
}

TransportResult Call(CoapMethod method, const char* path,
                     ConstByteSpan payload = {}, uint16_t format = 0) {
  const TransportRequest request{method, path, format, payload};
  TransportResult result;
  Client()
      ->Request(request, ByteSpan(body, sizeof(body)), 30000, result)
      .IgnoreError();  // the outcome is result.status
  return result;
}

bool BodyContains(const TransportResult& r, const char* text) {
  const size_t n = std::strlen(text);
  for (size_t i = 0; i + n <= r.payload_size; ++i) {
    if (std::memcmp(body + i, text, n) == 0) return true;
  }
  return false;
}

TEST(LwipCoapTest, NetworkComesUp) {
  ASSERT_TRUE(Client() != nullptr);
  if (options.dhcp) {
    uint8_t a[4];
    lwip::NetworkAddress(a);
    EXPECT_EQ(a[0], 10);  // slirp's DHCP range 10.0.2.15-
    EXPECT_EQ(a[2], 2);
  }
}

TEST(LwipCoapTest, GetWellKnownCore) {
  ASSERT_TRUE(Client() != nullptr);
  const TransportResult r = Call(CoapMethod::kGet, ".well-known/core");
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.code, kCode205);
  EXPECT_EQ(r.content_format, 40);
  EXPECT_TRUE(BodyContains(r, "</example_data>"));
  // 0, or 1 behind a relay that drops the first datagram.
  Print("retransmissions so far: %u\n", Client()->retransmissions());
}

TEST(LwipCoapTest, UnknownResourceIsNotFound) {
  ASSERT_TRUE(Client() != nullptr);
  const TransportResult r = Call(CoapMethod::kGet, "no-such-resource");
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.code, (4 << 5) | 4);
}

TEST(LwipCoapTest, Block1PutReadBackThroughBlock2) {
  ASSERT_TRUE(Client() != nullptr);
  static uint8_t data[3000];
  for (size_t i = 0; i < sizeof(data); ++i)
    data[i] = static_cast<uint8_t>(i * 31 + 7);
  const TransportResult put = Call(
      CoapMethod::kPut, "example_data",
      ConstByteSpan(reinterpret_cast<const std::byte*>(data), sizeof(data)),
      42);
  ASSERT_TRUE(put.status.ok());
  EXPECT_TRUE(put.code == ((2 << 5) | 1) || put.code == ((2 << 5) | 4));
  std::memset(body, 0, sizeof(body));
  const TransportResult get = Call(CoapMethod::kGet, "example_data");
  ASSERT_TRUE(get.status.ok());
  EXPECT_EQ(get.code, kCode205);
  ASSERT_EQ(get.payload_size, sizeof(data));
  if (options.corrupt) data[1500] ^= 0x01;
  size_t first_difference = sizeof(data);
  for (size_t i = 0; i < sizeof(data) && first_difference == sizeof(data); ++i)
    if (static_cast<uint8_t>(body[i]) != data[i]) first_difference = i;
  if (first_difference != sizeof(data))
    Print("read-back MISMATCH at byte %u\n", first_difference);
  EXPECT_EQ(first_difference, sizeof(data));
  Print("block transfers: %u bytes each way, %u retransmissions\n",
        sizeof(data), Client()->retransmissions());
}

TEST(LwipCoapTest, ObserveGetsNotifications) {
  ASSERT_TRUE(Client() != nullptr);
  // "time" is observable and changes every second: the registration's
  // answer and two more different bodies within 8 s.
  ASSERT_TRUE(
      Client()->StartObserve("time", ByteSpan(body, sizeof(body))).ok());
  char last[64] = {};
  int different = 0;
  const uint64_t start = board::NowMs();
  while (different < 3 && board::NowMs() - start < 8000) {
    ASSERT_TRUE(Client()->Poll(100).ok());
    TransportResult r;
    while (Client()->TakeNotification(r)) {
      ASSERT_TRUE(r.status.ok());
      EXPECT_EQ(r.code, kCode205);
      const size_t n =
          r.payload_size < sizeof(last) - 1 ? r.payload_size : sizeof(last) - 1;
      if (different == 0 || std::strlen(last) != n ||
          std::memcmp(last, body, n) != 0) {
        std::memcpy(last, body, n);
        last[n] = '\0';
        ++different;
      }
    }
  }
  Client()->StopObserve();
  EXPECT_EQ(different, 3);
  Print("notifications: %u after %u ms\n", different,
        static_cast<unsigned>(board::NowMs() - start));
  // Peak stack of the whole run (the footprint's RAM, docs/porting.md).
  Print("stack_used %u\n", baremetal::StackBytesUsed());
}

}  // namespace
}  // namespace edgeadmm
