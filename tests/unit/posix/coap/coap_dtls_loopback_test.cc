// CoapDtlsTransport against an in-process libcoap DTLS-PSK server: the real
// handshake and CoAP exchanges over 127.0.0.1 with whichever TLS library
// libcoap was built with (OpenSSL on the host, Mbed TLS on armhf under
// qemu-arm). One thread drives both event loops, so nothing here needs a
// second process or thread. tests/integration/coap_peer covers the same
// transport against Debian's coap-server-openssl (host only).
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "edgeadmm/posix/coap_client_context.h"
#include "edgeadmm/posix/coap_dtls_transport.h"
#include "loopback_dtls_server.h"

namespace edgeadmm::posix {
namespace {

using edgeadmm::testing::LoopbackDtlsServer;

constexpr char kIdentity[] = "device-0001";
constexpr char kKey[] = "psk-device-0001-5f1c0e7a9b2d4c68";
constexpr char kDefaultKey[] = "no-device-knows-this-key-3c1d";
constexpr uint8_t kContent = (2 << 5) | 5;
constexpr uint8_t kChanged = (2 << 5) | 4;
constexpr uint8_t kCreated = (2 << 5) | 1;
constexpr uint8_t kNotFound = (4 << 5) | 4;
constexpr uint16_t kOctetStream = 42;

ConstByteSpan Bytes(const std::string& s) {
  return ConstByteSpan(reinterpret_cast<const std::byte*>(s.data()), s.size());
}
ConstByteSpan Bytes(const std::vector<uint8_t>& v) {
  return ConstByteSpan(reinterpret_cast<const std::byte*>(v.data()), v.size());
}
ByteSpan Buffer(std::vector<uint8_t>& v) {
  return ByteSpan(reinterpret_cast<std::byte*>(v.data()), v.size());
}

class CoapDtlsLoopbackTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(context_.status().ok()) << "libcoap has no DTLS support";
    ASSERT_TRUE(server_.ok()) << "in-process DTLS server did not start";
  }

  CoapDtlsConfig Config(const char* key, uint16_t port = 0) {
    CoapDtlsConfig c;
    c.host = "127.0.0.1";
    c.port = port == 0 ? server_.port() : port;
    c.identity = kIdentity;
    c.key = ConstByteSpan(reinterpret_cast<const std::byte*>(key),
                          std::strlen(key));
    c.ack_timeout_ms = 1000;
    c.max_retransmit = 2;
    c.handshake_timeout_ms = 4000;
    return c;
  }

  // One exchange, polling the client and the server in turn until the
  // transport reports a result (or 30 s, generous for qemu-user).
  TransportResult Exchange(CoapDtlsTransport& transport, CoapMethod method,
                           const char* path, ConstByteSpan payload,
                           std::vector<uint8_t>& body, uint16_t format = 0) {
    const TransportRequest request{method, path, format, payload};
    TransportResult result;
    const Status started = transport.StartRequest(request, Buffer(body));
    if (!started.ok()) {
      result.status = started;
      return result;
    }
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < deadline) {
      if (!transport.Poll(5).ok()) break;
      if (transport.TakeResult(result)) return result;
      server_.Poll(5);
    }
    transport.Cancel();
    result.status = Status::DeadlineExceeded();
    ADD_FAILURE() << "no result for " << path << " within 30 s";
    return result;
  }

  LoopbackDtlsServer server_{kIdentity, kKey, kDefaultKey};
  CoapClientContext context_;
};

TEST_F(CoapDtlsLoopbackTest, GetOverDtlsPsk) {
  CoapDtlsTransport transport(context_, Config(kKey));
  std::vector<uint8_t> body(256);
  const TransportResult r =
      Exchange(transport, CoapMethod::kGet, "v1/ping", {}, body);
  ASSERT_EQ(r.status, Status::Ok()) << r.status.str();
  EXPECT_EQ(r.code, kContent);
  EXPECT_EQ(r.content_format, 0u);
  EXPECT_EQ(std::string(reinterpret_cast<char*>(body.data()), r.payload_size),
            "pong");
  EXPECT_TRUE(transport.connected());
  // The server saw our identity in the PSK handshake, once.
  ASSERT_EQ(server_.identities().size(), 1u);
  EXPECT_EQ(server_.identities()[0], kIdentity);

  // A second exchange reuses the session: no new handshake.
  const TransportResult again =
      Exchange(transport, CoapMethod::kGet, "v1/ping", {}, body);
  ASSERT_EQ(again.status, Status::Ok()) << again.status.str();
  EXPECT_EQ(again.code, kContent);
  EXPECT_EQ(server_.identities().size(), 1u);
}

// With a LocalPortPool (edgeadmm-fleet connect --local-address) the sessions
// come from the pool's address, each from the port it handed out: the server
// sees 127.0.0.3 (any 127/8 address is loopback on Linux), not 127.0.0.1, and
// two transports of one pool distinct ports. A closed session gives its port
// back, and a new session from that address handshakes again.
TEST_F(CoapDtlsLoopbackTest, SessionsBindToTheLocalPortPool) {
  // Two ports below the kernel's ephemeral range, so nothing else holds them.
  LocalPortPool pool("127.0.0.3", 20517, 20518);
  CoapDtlsConfig config = Config(kKey);
  config.local_ports = &pool;
  CoapDtlsTransport first(context_, config);
  CoapDtlsTransport second(context_, config);
  std::vector<uint8_t> body(256);
  ASSERT_EQ(Exchange(first, CoapMethod::kGet, "v1/ping", {}, body).status,
            Status::Ok());
  ASSERT_EQ(Exchange(second, CoapMethod::kGet, "v1/ping", {}, body).status,
            Status::Ok());
  ASSERT_EQ(server_.peers().size(), 2u);
  EXPECT_EQ(server_.peers()[0], "127.0.0.3:20517");
  EXPECT_EQ(server_.peers()[1], "127.0.0.3:20518");
  EXPECT_EQ(pool.held(), 2u);

  // Every port held: a third session cannot start (and takes none).
  CoapDtlsTransport third(context_, config);
  const TransportRequest ping{CoapMethod::kGet, "v1/ping", 0, {}};
  EXPECT_EQ(third.StartRequest(ping, Buffer(body)),
            Status::ResourceExhausted());
  EXPECT_EQ(pool.held(), 2u);

  first.Close();
  EXPECT_EQ(pool.held(), 1u);
  const TransportResult r =
      Exchange(third, CoapMethod::kGet, "v1/ping", {}, body);
  ASSERT_EQ(r.status, Status::Ok()) << r.status.str();
  EXPECT_EQ(r.code, kContent);
  ASSERT_EQ(server_.peers().size(), 3u);
  EXPECT_EQ(server_.peers()[2], "127.0.0.3:20517");
}

// The handshake deadline applies to the handshake only: an exchange started
// on an established session long after handshake_timeout_ms must not fail.
// (libcoap 4.3.1's Mbed TLS backend does not report COAP_EVENT_DTLS_CONNECTED
// when the handshake completes on a received record; the transport also reads
// the session state.)
TEST_F(CoapDtlsLoopbackTest,
       HandshakeDeadlineDoesNotExpireAnEstablishedSession) {
  CoapDtlsConfig config = Config(kKey);
  config.handshake_timeout_ms = 500;
  CoapDtlsTransport transport(context_, config);
  std::vector<uint8_t> body(256);
  TransportResult r =
      Exchange(transport, CoapMethod::kGet, "v1/ping", {}, body);
  ASSERT_EQ(r.status, Status::Ok()) << r.status.str();
  std::this_thread::sleep_for(std::chrono::milliseconds(700));
  r = Exchange(transport, CoapMethod::kGet, "v1/ping", {}, body);
  ASSERT_EQ(r.status, Status::Ok()) << r.status.str();
  EXPECT_EQ(r.code, kContent);
  EXPECT_EQ(server_.identities().size(), 1u);  // the same session
}

TEST_F(CoapDtlsLoopbackTest, PostBodyAndErrorCodesArrive) {
  CoapDtlsTransport transport(context_, Config(kKey));
  std::vector<uint8_t> body(256);
  const std::string sent = "update: job 1, round 17, 123 reals";
  TransportResult r = Exchange(transport, CoapMethod::kPost, "v1/echo",
                               Bytes(sent), body, kOctetStream);
  ASSERT_EQ(r.status, Status::Ok()) << r.status.str();
  EXPECT_EQ(r.code, kChanged);
  EXPECT_EQ(r.content_format, kOctetStream);
  EXPECT_EQ(std::string(reinterpret_cast<char*>(body.data()), r.payload_size),
            sent);

  r = Exchange(transport, CoapMethod::kGet, "no/such/thing", {}, body);
  ASSERT_EQ(r.status, Status::Ok()) << r.status.str();
  EXPECT_EQ(r.code, kNotFound);
}

TEST_F(CoapDtlsLoopbackTest, BlockwiseUploadAndDownload) {
  CoapDtlsTransport transport(context_, Config(kKey));
  std::vector<uint8_t> update(5000);
  for (size_t i = 0; i < update.size(); ++i) {
    update[i] = static_cast<uint8_t>((i * 131u + 7u) & 0xffu);
  }
  std::vector<uint8_t> body(8192);
  TransportResult r = Exchange(transport, CoapMethod::kPut, "v1/blob",
                               Bytes(update), body, kOctetStream);
  ASSERT_EQ(r.status, Status::Ok()) << r.status.str();
  EXPECT_EQ(r.code, kCreated);
  EXPECT_EQ(server_.blob_blocks(), 5u);  // 1024-byte Block1 blocks
  EXPECT_EQ(server_.blob(), update);

  r = Exchange(transport, CoapMethod::kGet, "v1/blob", {}, body);
  ASSERT_EQ(r.status, Status::Ok()) << r.status.str();
  EXPECT_EQ(r.code, kContent);
  ASSERT_EQ(r.payload_size, update.size());
  body.resize(r.payload_size);
  EXPECT_EQ(body, update);  // Block2 reassembled byte for byte

  std::vector<uint8_t> small(1000);
  r = Exchange(transport, CoapMethod::kGet, "v1/blob", {}, small);
  EXPECT_EQ(r.status, Status::ResourceExhausted()) << r.status.str();
}

// libcoap's transport does not stream bodies (transport.h): a request with
// a body source or a response sink is refused before anything is sent.
TEST_F(CoapDtlsLoopbackTest, RefusesStreamedBodies) {
  // Both count what the transport asks of them: nothing.
  struct CountingBody final : BodySource, BodySink {
    size_t size() const override { return 5000; }
    Status Read(size_t, ByteSpan) override {
      ++calls;
      return Status::Ok();
    }
    Status Write(size_t, ConstByteSpan) override {
      ++calls;
      return Status::Ok();
    }
    int calls = 0;
  } source, sink;
  CoapDtlsTransport transport(context_, Config(kKey));
  EXPECT_FALSE(transport.streams_bodies());
  std::vector<uint8_t> body(256);
  TransportRequest request{CoapMethod::kPost, "v1/echo", kOctetStream, {}};
  request.payload_source = &source;
  EXPECT_EQ(transport.StartRequest(request, Buffer(body)),
            Status::Unimplemented());
  request.payload_source = nullptr;
  request.response_sink = &sink;
  EXPECT_EQ(transport.StartRequest(request, Buffer(body)),
            Status::Unimplemented());
  EXPECT_FALSE(transport.connected());  // no session was opened
  EXPECT_TRUE(server_.identities().empty());
  EXPECT_EQ(source.calls + sink.calls, 0);
}

// The server answers our hello but can never verify our Finished (another
// key): DTLS drops such records silently, and the transport maps the stuck
// handshake (read from the TLS library's state) to UNAUTHENTICATED.
TEST_F(CoapDtlsLoopbackTest, WrongPskIsUnauthenticated) {
  CoapDtlsConfig config = Config("not-the-right-key-0001");
  config.handshake_timeout_ms = 2000;
  CoapDtlsTransport transport(context_, config);
  std::vector<uint8_t> body(256);
  const TransportResult r =
      Exchange(transport, CoapMethod::kGet, "v1/ping", {}, body);
  EXPECT_EQ(r.status, Status::Unauthenticated()) << r.status.str();
  ASSERT_FALSE(server_.identities().empty());
  EXPECT_EQ(server_.identities()[0], kIdentity);
}

// The context lists a tagged transport when libcoap hands it a response
// (edgeadmm-fleet polls just those devices), never an untagged one, and
// each piece of news once.
TEST_F(CoapDtlsLoopbackTest, TaggedTransportsAreListedWhenAnswered) {
  CoapDtlsConfig tagged_config = Config(kKey);
  tagged_config.wake_tag = 7;
  CoapDtlsTransport tagged(context_, tagged_config);
  CoapDtlsTransport untagged(context_, Config(kKey));
  std::vector<uint8_t> body(256);
  std::vector<size_t> woken;
  ASSERT_EQ(Exchange(untagged, CoapMethod::kGet, "v1/ping", {}, body).status,
            Status::Ok());
  context_.TakeWoken(woken);
  EXPECT_TRUE(woken.empty());
  ASSERT_EQ(Exchange(tagged, CoapMethod::kGet, "v1/ping", {}, body).status,
            Status::Ok());
  context_.TakeWoken(woken);
  ASSERT_FALSE(woken.empty());
  for (size_t tag : woken) EXPECT_EQ(tag, 7u);
  woken.clear();
  context_.TakeWoken(woken);
  EXPECT_TRUE(woken.empty());
}

// A sharded context (edgeadmm-fleet's: CoapClientContext::ShardsFor) puts
// new sessions on its libcoap contexts in turn, and one Poll runs every
// shard that has something: six sessions on three shards, two on each, and
// six requests started at once are all answered.
TEST_F(CoapDtlsLoopbackTest, ShardedContextSpreadsSessionsAndRunsEveryShard) {
  CoapClientContext sharded(3);
  ASSERT_TRUE(sharded.status().ok());
  ASSERT_EQ(sharded.shards(), 3u);
  std::vector<std::unique_ptr<CoapDtlsTransport>> transports;
  std::map<const coap_context_t*, int> sessions_per_shard;
  std::vector<uint8_t> body(256);
  for (int i = 0; i < 6; ++i) {
    transports.push_back(
        std::make_unique<CoapDtlsTransport>(sharded, Config(kKey)));
    const TransportResult r =
        Exchange(*transports.back(), CoapMethod::kGet, "v1/ping", {}, body);
    ASSERT_EQ(r.status, Status::Ok()) << r.status.str();
    ++sessions_per_shard[transports.back()->session_context()];
  }
  ASSERT_EQ(sessions_per_shard.size(), 3u);
  for (const auto& [shard, sessions] : sessions_per_shard) {
    EXPECT_NE(shard, nullptr);
    EXPECT_EQ(sessions, 2);
  }
  std::vector<std::vector<uint8_t>> bodies(6, std::vector<uint8_t>(256));
  for (size_t i = 0; i < transports.size(); ++i) {
    ASSERT_TRUE(transports[i]
                    ->StartRequest({CoapMethod::kGet, "v1/ping", 0, {}},
                                   Buffer(bodies[i]))
                    .ok());
  }
  std::vector<bool> answered(transports.size(), false);
  size_t left = transports.size();
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (left > 0 && std::chrono::steady_clock::now() < deadline) {
    ASSERT_TRUE(sharded.Poll(5).ok());
    server_.Poll(5);
    for (size_t i = 0; i < transports.size(); ++i) {
      TransportResult r;
      if (answered[i] || !transports[i]->TakeResult(r)) continue;
      EXPECT_EQ(r.status, Status::Ok()) << r.status.str();
      EXPECT_EQ(r.code, kContent);
      answered[i] = true;
      --left;
    }
  }
  EXPECT_EQ(left, 0u);
  // Still six sessions, no new handshake: each request used its session.
  EXPECT_EQ(server_.identities().size(), 6u);
}

TEST_F(CoapDtlsLoopbackTest, NoServerIsNotReportedAsUnauthenticated) {
  // A port nobody listens on: the handshake never gets an answer.
  uint16_t closed_port = static_cast<uint16_t>(server_.port() + 1);
  if (closed_port < 1024) closed_port = 40001;
  CoapDtlsConfig config = Config(kKey, closed_port);
  config.handshake_timeout_ms = 2000;
  CoapDtlsTransport transport(context_, config);
  std::vector<uint8_t> body(256);
  const TransportResult r =
      Exchange(transport, CoapMethod::kGet, "v1/ping", {}, body);
  EXPECT_TRUE(r.status == Status::Unavailable() ||
              r.status == Status::DeadlineExceeded())
      << r.status.str();
}

}  // namespace
}  // namespace edgeadmm::posix
