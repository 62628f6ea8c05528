// The POSIX CoAP/DTLS-PSK transport against a real peer: Debian's
// coap-server-openssl on 127.0.0.1, started and stopped by each test.
#include <gtest/gtest.h>
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "coap_server_process.h"
#include "edgeadmm/posix/coap_client_context.h"
#include "edgeadmm/posix/coap_dtls_transport.h"
#include "edgeadmm/wire/coap_code.h"
#include "edgeadmm/wire/protocol.h"
#include "edgeadmm/wire/round_task.h"
#include "edgeadmm/wire/update.h"
#include "udp_relay.h"

#if defined(__SANITIZE_ADDRESS__)
// The sanitizer runtime's (GCC ships no header for it).
extern "C" size_t __sanitizer_get_current_allocated_bytes();
#endif

namespace edgeadmm::posix {
namespace {

using edgeadmm::testing::CoapServerProcess;
using edgeadmm::testing::UdpRelay;
using wire::CoapCode;

constexpr char kIdentity[] = "device-0001";
constexpr char kKey[] = "psk-device-0001-5f1c0e7a9b2d4c68";
constexpr char kOtherIdentity[] = "device-0002";
constexpr char kOtherKey[] = "psk-device-0002-0a9e8d7c6b5a4f3e";
constexpr char kDefaultKey[] = "no-device-knows-this-key-3c1d";

ConstByteSpan Bytes(const char* s) {
  return ConstByteSpan(reinterpret_cast<const std::byte*>(s), std::strlen(s));
}
ConstByteSpan Bytes(const std::vector<uint8_t>& v) {
  return ConstByteSpan(reinterpret_cast<const std::byte*>(v.data()), v.size());
}
ByteSpan Buffer(std::vector<uint8_t>& v) {
  return ByteSpan(reinterpret_cast<std::byte*>(v.data()), v.size());
}

std::vector<Real> Ramp(size_t n) {
  std::vector<Real> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = (double(i % 89) - 44.0) / 16.0;
  return v;
}

// An encoded paper-002 task and update of dimension p.
std::vector<uint8_t> TaskBytes(uint32_t p) {
  edgeadmm_wire_RoundTask t = edgeadmm_wire_RoundTask_init_zero;
  t.job_id = 1;
  t.round_id = 17;
  t.role = edgeadmm_wire_Role_ROLE_PARTICIPATE;
  t.algorithm = edgeadmm_wire_Algorithm_ALGORITHM_FEDERATED_PRIVATE_ADMM;
  t.loss = edgeadmm_wire_Loss_LOSS_LOGISTIC;
  t.regularizer = edgeadmm_wire_Regularizer_REGULARIZER_L1;
  t.regularizer_weight = 1e-4;
  t.noise_placement = edgeadmm_wire_NoisePlacement_NOISE_PLACEMENT_DEVICE;
  t.which_params = edgeadmm_wire_RoundTask_federated_tag;
  t.params.federated = {0.5, 2.0, 1.0, 3.0, false};
  t.dimension = p;
  t.deadline_ms = 60000;
  const std::vector<Real> model = Ramp(p);
  std::vector<uint8_t> out(wire::MaxRoundTaskBytes(p));
  const StatusWithSize n = wire::EncodeRoundTask(
      t, Span<const Real>(model.data(), p), {}, Buffer(out));
  EXPECT_TRUE(n.ok());
  out.resize(n.size());
  return out;
}

std::vector<uint8_t> UpdateBytes(uint32_t p) {
  edgeadmm_wire_Update u = edgeadmm_wire_Update_init_zero;
  u.job_id = 1;
  u.round_id = 17;
  std::strcpy(u.device_id, kIdentity);
  u.kind = edgeadmm_wire_UpdateKind_UPDATE_KIND_DELTA_U;
  u.dimension = p;
  u.has_ledger = true;
  u.ledger = {4, 0.8, 1e-6,
              edgeadmm_wire_RdpConversion_RDP_CONVERSION_IMPROVED};
  const std::vector<Real> v = Ramp(p);
  std::vector<uint8_t> out(wire::MaxUpdateBytes(p));
  const StatusWithSize n =
      wire::EncodeUpdate(u, Span<const Real>(v.data(), p), Buffer(out));
  EXPECT_TRUE(n.ok());
  out.resize(n.size());
  return out;
}

class CoapPeerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = std::make_unique<CoapServerProcess>(
        std::vector<edgeadmm::testing::PskEntry>{{kIdentity, kKey},
                                                 {kOtherIdentity, kOtherKey}},
        kDefaultKey);
    ASSERT_TRUE(server_->running()) << "coap-server-openssl did not start";
    ASSERT_TRUE(context_.status().ok());
  }

  CoapDtlsConfig Config(uint16_t port, const char* identity, const char* key) {
    CoapDtlsConfig c;
    c.host = "127.0.0.1";
    c.port = port;
    c.identity = identity;
    c.key = Bytes(key);
    c.ack_timeout_ms = 1000;
    c.max_retransmit = 4;
    c.handshake_timeout_ms = 3000;
    return c;
  }

  TransportResult Exchange(Transport& t, CoapMethod method, const char* path,
                           ConstByteSpan payload, std::vector<uint8_t>& body,
                           uint16_t format = 0) {
    TransportRequest request;
    request.method = method;
    request.path = path;
    request.payload = payload;
    request.content_format = format;
    TransportResult result;
    t.Request(request, Buffer(body), 20000, result).IgnoreError();
    return result;
  }

  std::unique_ptr<CoapServerProcess> server_;
  CoapClientContext context_;
};

TEST_F(CoapPeerTest, GetOverDtlsPsk) {
  CoapDtlsTransport transport(context_,
                              Config(server_->dtls_port(), kIdentity, kKey));
  std::vector<uint8_t> body(2048);
  const TransportResult r = Exchange(transport, CoapMethod::kGet, "", {}, body);
  ASSERT_EQ(r.status, Status::Ok()) << r.status.str();
  EXPECT_EQ(r.code, wire::kCoapContent);
  const std::string text(reinterpret_cast<char*>(body.data()), r.payload_size);
  EXPECT_NE(text.find("libcoap"), std::string::npos) << text;
  EXPECT_TRUE(transport.connected());
}

TEST_F(CoapPeerTest, BlockwiseUploadAndDownloadOfLargeBodies) {
  UdpRelay relay(server_->dtls_port());
  ASSERT_TRUE(relay.ok());
  CoapDtlsTransport transport(context_, Config(relay.port(), kIdentity, kKey));
  const std::vector<uint8_t> update = UpdateBytes(5000);
  ASSERT_GT(update.size(), 20000u);
  std::vector<uint8_t> body(32768);
  relay.ResetCounts();
  TransportResult r = Exchange(transport, CoapMethod::kPut, "v1/blob",
                               Bytes(update), body, wire::kUpdateFormat);
  ASSERT_EQ(r.status, Status::Ok()) << r.status.str();
  EXPECT_EQ(r.code, CoapCode(2, 1));  // Created
  // Block1: the body went in many datagrams, none above the DTLS MTU.
  EXPECT_GE(relay.counts().to_server_datagrams, 20u);
  EXPECT_LT(relay.counts().to_server_bytes / relay.counts().to_server_datagrams,
            1400u);

  r = Exchange(transport, CoapMethod::kGet, "v1/blob", {}, body);
  ASSERT_EQ(r.status, Status::Ok()) << r.status.str();
  EXPECT_EQ(r.code, wire::kCoapContent);
  ASSERT_EQ(r.payload_size, update.size());
  body.resize(r.payload_size);
  EXPECT_EQ(body, update);  // Block2 reassembled byte for byte
  std::vector<Real> vector(5000);
  wire::DecodedUpdate decoded;
  ASSERT_EQ(
      wire::DecodeUpdate(Bytes(body), Span<Real>(vector.data(), 5000), decoded),
      Status::Ok());
  EXPECT_EQ(decoded.vector[4999], Ramp(5000)[4999]);
}

TEST_F(CoapPeerTest, ResponseLargerThanBufferIsResourceExhausted) {
  CoapDtlsTransport transport(context_,
                              Config(server_->dtls_port(), kIdentity, kKey));
  const std::vector<uint8_t> task = TaskBytes(2000);
  std::vector<uint8_t> body(16);
  ASSERT_EQ(Exchange(transport, CoapMethod::kPut, "v1/task", Bytes(task), body,
                     wire::kRoundTaskFormat)
                .status,
            Status::Ok());
  std::vector<uint8_t> small(1000);
  const TransportResult r =
      Exchange(transport, CoapMethod::kGet, "v1/task", {}, small);
  EXPECT_EQ(r.status, Status::ResourceExhausted());
}

TEST_F(CoapPeerTest, PostAndErrorCodesArriveAsCodes) {
  CoapDtlsTransport transport(context_,
                              Config(server_->dtls_port(), kIdentity, kKey));
  std::vector<uint8_t> body(512);
  TransportResult r =
      Exchange(transport, CoapMethod::kGet, "no/such/thing", {}, body);
  ASSERT_EQ(r.status, Status::Ok());
  EXPECT_EQ(r.code, wire::kCoapNotFound);
  EXPECT_EQ(wire::StatusFromCoapCode(r.code), Status::NotFound());
  const std::vector<uint8_t> update = UpdateBytes(123);
  r = Exchange(transport, CoapMethod::kPost, "v1/update", Bytes(update), body,
               wire::kUpdateFormat);
  ASSERT_EQ(r.status, Status::Ok());
  std::printf("POST v1/update -> %d.%02d\n", r.code >> 5, r.code & 31);
  EXPECT_TRUE(r.code == wire::kCoapMethodNotAllowed ||
              r.code == wire::kCoapNotFound || (r.code >> 5) == 2)
      << int(r.code);
}

TEST_F(CoapPeerTest, ObserveDeliversNotifications) {
  CoapDtlsTransport transport(context_,
                              Config(server_->dtls_port(), kIdentity, kKey));
  std::vector<uint8_t> notification(256);
  ASSERT_EQ(transport.StartObserve("time", Buffer(notification)), Status::Ok());
  int received = 0;
  const auto start = std::chrono::steady_clock::now();
  while (received < 3 &&
         std::chrono::steady_clock::now() - start < std::chrono::seconds(8)) {
    ASSERT_TRUE(transport.Poll(100).ok());
    TransportResult r;
    while (transport.TakeNotification(r)) {
      ASSERT_EQ(r.status, Status::Ok()) << r.status.str();
      EXPECT_EQ(r.code, wire::kCoapContent);
      EXPECT_GT(r.payload_size, 0u);
      ++received;
    }
  }
  EXPECT_GE(received, 3);  // the first answer plus two notifications
  transport.StopObserve();
  // A request still works on the same session after the observation.
  std::vector<uint8_t> body(2048);
  EXPECT_EQ(Exchange(transport, CoapMethod::kGet, "", {}, body).code,
            wire::kCoapContent);
}

TEST_F(CoapPeerTest, WrongPskIsUnauthenticated) {
  CoapDtlsTransport transport(
      context_, Config(server_->dtls_port(), kIdentity, "not-the-right-key"));
  std::vector<uint8_t> body(256);
  const auto start = std::chrono::steady_clock::now();
  const TransportResult r = Exchange(transport, CoapMethod::kGet, "", {}, body);
  EXPECT_EQ(r.status, Status::Unauthenticated()) << r.status.str();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(8));
}

TEST_F(CoapPeerTest, AnotherDevicesKeyIsUnauthenticated) {
  CoapDtlsTransport transport(
      context_, Config(server_->dtls_port(), kIdentity, kOtherKey));
  std::vector<uint8_t> body(256);
  EXPECT_EQ(Exchange(transport, CoapMethod::kGet, "", {}, body).status,
            Status::Unauthenticated());
}

TEST_F(CoapPeerTest, UnknownIdentityIsUnauthenticated) {
  CoapDtlsTransport transport(
      context_, Config(server_->dtls_port(), "device-9999", kKey));
  std::vector<uint8_t> body(256);
  EXPECT_EQ(Exchange(transport, CoapMethod::kGet, "", {}, body).status,
            Status::Unauthenticated());
}

TEST_F(CoapPeerTest, NoServerIsNotReportedAsUnauthenticated) {
  const uint16_t closed = edgeadmm::testing::FreePortPair();
  CoapDtlsTransport transport(context_, Config(closed, kIdentity, kKey));
  std::vector<uint8_t> body(256);
  const TransportResult r = Exchange(transport, CoapMethod::kGet, "", {}, body);
  EXPECT_TRUE(r.status == Status::Unavailable() ||
              r.status == Status::DeadlineExceeded())
      << r.status.str();
}

TEST_F(CoapPeerTest, ManyTransportsShareOneContext) {
  // The fleet's shape: one context, several sessions, one event loop.
  constexpr int kDevices = 8;
  std::vector<std::unique_ptr<CoapDtlsTransport>> devices;
  std::vector<std::vector<uint8_t>> bodies(kDevices,
                                           std::vector<uint8_t>(2048));
  for (int i = 0; i < kDevices; ++i) {
    devices.push_back(std::make_unique<CoapDtlsTransport>(
        context_, Config(server_->dtls_port(), kIdentity, kKey)));
    TransportRequest request;
    request.path = "";
    ASSERT_EQ(devices[i]->StartRequest(request, Buffer(bodies[i])),
              Status::Ok());
  }
  int done = 0;
  const auto start = std::chrono::steady_clock::now();
  while (done < kDevices &&
         std::chrono::steady_clock::now() - start < std::chrono::seconds(15)) {
    ASSERT_TRUE(context_.Poll(50).ok());
    for (auto& d : devices) {
      TransportResult r;
      if (d->TakeResult(r)) {
        EXPECT_EQ(r.status, Status::Ok());
        EXPECT_EQ(r.code, wire::kCoapContent);
        ++done;
      }
    }
  }
  EXPECT_EQ(done, kDevices);
}

TEST_F(CoapPeerTest, LostDatagramsAreRetransmitted) {
  // Chosen datagrams are dropped once the session is up: a request and the
  // answer to its retransmission, Block1 blocks and their acknowledgements,
  // a Block2 request and a Block2 response. Every exchange completes through
  // CoAP's confirmable retransmission and the bodies read back are
  // byte-identical.
  UdpRelay relay(server_->dtls_port());
  ASSERT_TRUE(relay.ok());
  CoapDtlsConfig c = Config(relay.port(), kIdentity, kKey);
  c.ack_timeout_ms = 1000;  // libcoap 4.3.1's minimum
  CoapDtlsTransport transport(context_, c);
  std::vector<uint8_t> body(32768);
  ASSERT_EQ(Exchange(transport, CoapMethod::kGet, "", {}, body).code,
            wire::kCoapContent);
  for (uint32_t p : {123u, 5000u}) {
    SCOPED_TRACE(p);
    const std::vector<uint8_t> update = UpdateBytes(p);
    relay.ResetCounts();
    if (p == 123) {
      relay.DropExactly({1}, {1});
    } else {
      relay.DropExactly({3, 10}, {5, 12});
    }
    TransportRequest put{CoapMethod::kPut, "v1/lossy", wire::kUpdateFormat,
                         Bytes(update)};
    TransportResult r;
    ASSERT_EQ(transport.Request(put, Buffer(body), 60000, r), Status::Ok())
        << r.status.str();
    EXPECT_EQ(r.code >> 5, 2);
    EXPECT_EQ(relay.counts().dropped, p == 123 ? 2u : 4u);
    relay.ResetCounts();
    relay.DropExactly({1}, {p == 123 ? 1 : 4});
    body.assign(32768, 0);
    TransportRequest get{CoapMethod::kGet, "v1/lossy", 0, {}};
    ASSERT_EQ(transport.Request(get, Buffer(body), 60000, r), Status::Ok())
        << r.status.str();
    EXPECT_EQ(relay.counts().dropped, 2u);
    ASSERT_EQ(r.code, wire::kCoapContent);
    ASSERT_EQ(r.payload_size, update.size());
    EXPECT_TRUE(std::equal(update.begin(), update.end(), body.begin()));
  }
}

// Bytes this process has allocated (ASan's allocator in sanitizer builds;
// glibc's main arena otherwise, which OneArena makes the only one).
size_t HeapInUse() {
#if defined(__SANITIZE_ADDRESS__)
  return __sanitizer_get_current_allocated_bytes();
#else
  return mallinfo2().uordblks;
#endif
}
void OneArena() {
#if !defined(__SANITIZE_ADDRESS__)
  mallopt(M_ARENA_MAX, 1);  // the relay threads' memory counts too
#endif
}

TEST_F(CoapPeerTest, ReconnectsAfterIcmpErrorsDoNotGrowMemory) {
  // A device whose gateway vanishes mid-exchange (ICMP port unreachable) and
  // comes back, again and again: each cycle fails one request on a reset
  // session and opens a new one. libcoap 4.3.1 lost the failed session's
  // queued request (node + PDU, ~410 bytes) when we released the session
  // (issue 20; libcoap_release_leak.c): the heap must not grow per cycle.
  OneArena();
  // The relay closes and reopens its port every cycle. A port from the
  // ephemeral range could be taken by another process's socket meanwhile
  // (seen once under ctest -j2: the reopened relay could not bind, the
  // device's handshake went nowhere), so it listens below that range, where
  // the kernel never hands out ports on its own.
  // Each cycle's relay is a gateway that came back: the server must see it
  // from an address no earlier cycle used. coap-server-openssl (libcoap
  // 4.3.1) ignores a ClientHello from an address whose session is still
  // established, so a relay whose upstream port the kernel happened to hand
  // out again (about 4% of runs for 50 cycles) got no answer: the flake of
  // issue 11. Every relay therefore sends from its own loopback address,
  // 127.0.1.N for cycle N; the test fails if a reconnect goes unanswered.
  // (Our daemon handles a new handshake from a known address itself:
  // DtlsSessionJanitor, tests in daemon_handshake_loss_test.)
  uint32_t relays = 0;
  auto open_relay = [&](uint16_t listen_port) {
    ++relays;
    return std::make_unique<UdpRelay>(server_->dtls_port(), 0.0, 1, listen_port,
                                      0x7F000100u + relays);
  };
  // The relay closes and reopens its port every cycle. A port from the
  // ephemeral range could be taken by another process's socket meanwhile
  // (seen once under ctest -j2: the reopened relay could not bind, the
  // device's handshake went nowhere), so it listens below that range, where
  // the kernel never hands out ports on its own.
  std::unique_ptr<UdpRelay> relay;
  for (uint16_t candidate = static_cast<uint16_t>(20000 + getpid() % 10000);
       relay == nullptr || !relay->ok(); ++candidate) {
    ASSERT_LT(candidate, 32768) << "no free port below the ephemeral range";
    relay = open_relay(candidate);
  }
  const uint16_t port = relay->port();
  CoapDtlsTransport transport(context_, Config(port, kIdentity, kKey));
  std::vector<uint8_t> body(2048);
  auto cycle = [&] {
    if (relay == nullptr) {
      ASSERT_LT(relays, 250u);
      relay = open_relay(port);
      ASSERT_TRUE(relay->ok());
    }
    const TransportResult up =
        Exchange(transport, CoapMethod::kGet, "", {}, body);
    ASSERT_TRUE(up.status.ok())
        << "reconnect " << relays << ": " << up.status.str();
    relay.reset();  // the port is closed: the next datagram draws an ICMP error
    const TransportResult down =
        Exchange(transport, CoapMethod::kGet, "", {}, body);
    ASSERT_EQ(down.status, Status::Unavailable()) << down.status.str();
  };
  // Lets every retransmission timer of the failed sessions fire: the first
  // (and, after its ICMP error, last) one is due ack_timeout .. 1.5 x
  // ack_timeout = 1 .. 1.5 s after the cycle; 3 s of polling covers it.
  // (coap_can_exit() would be the event to wait for, but here it stayed
  // false for more than 30 s after the warm-up: some queue of the context
  // never empties, while the heap is already steady.)
  auto settle = [&] {
    const auto start = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() - start < std::chrono::seconds(3)) {
      ASSERT_TRUE(context_.Poll(50).ok());
    }
  };
  // Warm-up: caches fill in the first cycles. (glibc's tcache would count
  // cached free chunks as in use: ctest runs this test with it off.)
  for (int i = 0; i < 10; ++i) ASSERT_NO_FATAL_FAILURE(cycle());
  ASSERT_NO_FATAL_FAILURE(settle());
  // Four blocks of ten reconnects. A lost request (~410 bytes, the bug this
  // test guards) raises the heap above its highest level so far in every
  // block. OpenSSL's caches do not: a one-time fill (seen in CI under load:
  // 76,656 bytes once, the first time a slow handshake took another path)
  // raises it in one block, and a buffer that a session holds or has freed
  // when the heap is read (76,080 bytes, seen alternating between blocks)
  // rises once, then returns to a level already reached: at most two
  // blocks together, where a leak is all four.
  constexpr int kBlocks = 4;
  constexpr int kCycles = 10;
  size_t heap = HeapInUse();
  size_t highest = heap;
  int growing_blocks = 0;
  for (int block = 0; block < kBlocks; ++block) {
    for (int i = 0; i < kCycles; ++i) ASSERT_NO_FATAL_FAILURE(cycle());
    ASSERT_NO_FATAL_FAILURE(settle());
    const size_t after = HeapInUse();
    std::printf("heap in use: %zu -> %zu bytes over %d reconnects\n", heap,
                after, kCycles);
    if (after >= highest + 410) ++growing_blocks;
    highest = std::max(highest, after);
    heap = after;
  }
  EXPECT_LE(growing_blocks, 2)
      << "the heap rose above its highest level in " << growing_blocks << " of "
      << kBlocks << " blocks";
}

// Datagrams and bytes of one round as the device sees it: fetch the task
// (GET, Block2 if large), upload the update (Block1 if large), read the
// receipt. Printed for docs/protocol.md; asserted against the Block-wise
// arithmetic.
void MeasureRound(CoapPeerTest* test, CoapClientContext& context,
                  uint16_t dtls_port, uint32_t p) {
  (void)test;
  UdpRelay relay(dtls_port);
  ASSERT_TRUE(relay.ok());
  CoapDtlsConfig c;
  c.port = relay.port();
  c.identity = kIdentity;
  c.key = Bytes(kKey);
  CoapDtlsTransport transport(context, c);
  const std::vector<uint8_t> task = TaskBytes(p);
  const std::vector<uint8_t> update = UpdateBytes(p);
  std::vector<uint8_t> body(task.size() + 1024);
  TransportRequest put{CoapMethod::kPut, "v1/task", wire::kRoundTaskFormat,
                       Bytes(task)};
  TransportResult r;
  ASSERT_EQ(transport.Request(put, Buffer(body), 20000, r), Status::Ok());
  transport.Close();  // measure the handshake of a fresh session below
  relay.ResetCounts();

  TransportRequest get{CoapMethod::kGet, "v1/task", 0, {}};
  ASSERT_EQ(transport.Request(get, Buffer(body), 20000, r), Status::Ok());
  ASSERT_EQ(r.payload_size, task.size());
  const UdpRelay::Counts handshake_and_task = relay.counts();
  relay.ResetCounts();
  ASSERT_EQ(transport.Request(get, Buffer(body), 20000, r), Status::Ok());
  const UdpRelay::Counts task_only = relay.counts();
  relay.ResetCounts();
  TransportRequest upload{CoapMethod::kPut, "v1/update", wire::kUpdateFormat,
                          Bytes(update)};
  ASSERT_EQ(transport.Request(upload, Buffer(body), 20000, r), Status::Ok());
  ASSERT_EQ(r.code >> 5, 2);
  const UdpRelay::Counts up = relay.counts();
  auto print = [](const char* what, const UdpRelay::Counts& n) {
    std::printf("  %-22s %3llu dgrams up %6llu B | %3llu dgrams down %6llu B\n",
                what, (unsigned long long)n.to_server_datagrams,
                (unsigned long long)n.to_server_bytes,
                (unsigned long long)n.to_client_datagrams,
                (unsigned long long)n.to_client_bytes);
  };
  std::printf("ROUND p=%u: RoundTask %zu B, Update %zu B\n", p, task.size(),
              update.size());
  print("handshake + GET task", handshake_and_task);
  print("GET task (session up)", task_only);
  print("upload update", up);
  // The PSK handshake (with the cookie exchange) is 3-4 datagrams each way
  // on top of the GET (OpenSSL sometimes packs two flights).
  const uint64_t handshake_up =
      handshake_and_task.to_server_datagrams - task_only.to_server_datagrams;
  EXPECT_GE(handshake_up, 3u);
  EXPECT_LE(handshake_up, 4u);
  // Block-wise with 1024-byte blocks: ceil(size / 1024) request datagrams
  // for the upload, each acknowledged.
  const uint64_t blocks = (update.size() + 1023) / 1024;
  EXPECT_EQ(up.to_server_datagrams, blocks);
  EXPECT_EQ(up.to_client_datagrams, blocks);
}

TEST_F(CoapPeerTest, DatagramsPerRoundP123) {
  MeasureRound(this, context_, server_->dtls_port(), 123);
}

TEST_F(CoapPeerTest, DatagramsPerRoundP5000) {
  MeasureRound(this, context_, server_->dtls_port(), 5000);
}

}  // namespace
}  // namespace edgeadmm::posix
