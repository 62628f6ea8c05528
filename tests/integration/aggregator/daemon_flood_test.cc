// Handshake floods against the daemon (issue 14 item 1), performed on
// loopback, bounded in count and time:
//   - spoofed first ClientHellos, each from its own address (127.1.x.y):
//     before the cookie exchange moved in front of libcoap, about 100 of
//     them in 30 s kept every device out; now each gets a HelloVerifyRequest
//     and leaves nothing behind, and a device connects during the flood;
//   - one source completing the cookie exchange over and over without
//     finishing a handshake: it gets max_handshakes_per_source (32) of them
//     in progress, no more, and other addresses are not affected;
//   - many sources doing so at once, more than max_handshakes in all
//     (issue 32 item 3): before, every place stayed taken and new devices
//     were locked out for as long as the flood lasted; now a new device
//     takes the place of the busiest source's oldest handshake once that
//     one has been in progress for 2 s;
//   - half-open handshakes with max_sessions set (item 5): libcoap's
//     idle-session cap evicted an established device session for them; now
//     they wait for room and the device's session stays;
//   - (issue 32 item 9) with max_handshakes = 4, 6 such handshakes from 6
//     sources: 4 start (libcoap alone admitted the cap + 1).
//   - not a flood, the same defence: a metrics file whose write hangs (its
//     `.tmp` a FIFO nobody reads, as on a hung mount): the loop does not
//     wait for it, so a device connects and the daemon still shuts down
//     cleanly.
// Prints the figures docs/security.md quotes.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "daemon_process.h"
#include "dtls_hello.h"
#include "edgeadmm/posix/coap_dtls_transport.h"
#include "edgeadmm/posix/monotonic_clock.h"
#include "edgeadmm/registry/device_registry.h"
#include "edgeadmm/wire/coap_code.h"
#include "edgeadmm/wire/protocol.h"
#include "metrics_file.h"
#include "raw_coap_session.h"
#include "test_database.h"

namespace edgeadmm {
namespace {

using testing::ClientHello;
using testing::CookieOf;

// A UDP socket on `source` (host order), port picked by the kernel.
int SocketFrom(uint32_t source) {
  const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(source);
  if (fd >= 0 && bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

bool SendTo(int fd, unsigned port, const std::vector<uint8_t>& bytes) {
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<uint16_t>(port));
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return sendto(fd, bytes.data(), bytes.size(), 0,
                reinterpret_cast<sockaddr*>(&to),
                sizeof(to)) == static_cast<ssize_t>(bytes.size());
}

// Waits up to `timeout_ms` for one datagram on `fd`; empty if none came.
std::vector<uint8_t> Receive(int fd, int timeout_ms) {
  const uint64_t start = posix::MonotonicMs();
  std::vector<uint8_t> buffer(2048);
  do {
    const ssize_t n = recv(fd, buffer.data(), buffer.size(), 0);
    if (n > 0) {
      buffer.resize(static_cast<size_t>(n));
      return buffer;
    }
    std::this_thread::yield();
  } while (posix::MonotonicMs() - start < static_cast<uint64_t>(timeout_ms));
  return {};
}

// `attempts` sockets on `source` each complete the cookie exchange and send
// the ClientHello with the cookie, going no further; returns how many got a
// ServerHello (a handshake started) within 1 s. `next_source`: each socket
// on the next address instead.
int StartHandshakes(unsigned port, uint32_t source, int attempts,
                    bool next_source = false) {
  std::vector<int> sockets;
  std::vector<std::vector<uint8_t>> cookies;
  for (int i = 0; i < attempts; ++i) {
    const int fd =
        SocketFrom(source + (next_source ? static_cast<uint32_t>(i) : 0));
    EXPECT_GE(fd, 0);
    if (fd < 0) break;
    sockets.push_back(fd);
    EXPECT_TRUE(SendTo(fd, port, ClientHello({}, 0, 0)));
    cookies.push_back(CookieOf(Receive(fd, 1000)));
    EXPECT_FALSE(cookies.back().empty()) << "attempt " << i;
  }
  const uint64_t start = posix::MonotonicMs();
  for (size_t i = 0; i < sockets.size(); ++i) {
    EXPECT_TRUE(SendTo(sockets[i], port, ClientHello(cookies[i], 1, 1)));
  }
  int server_hellos = 0;
  for (int fd : sockets) {
    const uint64_t spent = posix::MonotonicMs() - start;
    const std::vector<uint8_t> answer =
        Receive(fd, spent >= 1000 ? 0 : static_cast<int>(1000 - spent));
    // A ServerHello (handshake type 2) starts the handshake.
    if (answer.size() > 13 && answer[0] == 22 && answer[13] == 2) {
      ++server_hellos;
    }
    close(fd);
  }
  return server_hellos;
}

class DaemonFloodTest : public ::testing::Test {
 protected:
  void SetUp() override {
    registry::DeviceRegistry reg(t_.db());
    auto psk = reg.Add("dev-000");
    ASSERT_TRUE(psk.ok());
    key_ = *psk;
    daemon_ = std::make_unique<testing::DaemonProcess>(
        EDGEADMM_DAEMON_PATH,
        testing::DaemonArgs(t_.dir(), t_.path(), ServerLines()));
    ASSERT_TRUE(daemon_->started());
    ASSERT_TRUE(context_.status().ok());
  }

  // Lines of the daemon's [server] table.
  virtual std::string ServerLines() const { return ""; }

  // A device's first exchange (handshake + GET v1/status): its outcome and
  // how long it took. The handshake timeout is the transport's default
  // (5 s): under a flood that holds every place, the device's ClientHello
  // gets in once a flood handshake is 2 s old (evict_after_ms), at its
  // retransmission 3 s after the first.
  Status Connect(uint64_t& ms) {
    posix::CoapDtlsConfig link;
    link.host = "127.0.0.1";
    link.port = static_cast<uint16_t>(daemon_->port());
    link.identity = "dev-000";
    link.key = ConstByteSpan(reinterpret_cast<const std::byte*>(key_.data()),
                             key_.size());
    link.ack_timeout_ms = 1000;
    posix::CoapDtlsTransport transport(context_, link);
    TransportRequest request;
    request.method = CoapMethod::kGet;
    request.path = wire::kStatusPath;
    TransportResult result;
    std::byte body[1024];
    const uint64_t start = posix::MonotonicMs();
    const Status status =
        transport.Request(request, ByteSpan(body, sizeof(body)), 8000, result);
    ms = posix::MonotonicMs() - start;
    return status;
  }

  // One handshake attempt from `fd`: a ClientHello with client random
  // `seed`, the cookie of the HelloVerifyRequest, the ClientHello again
  // with it (left unfinished). False if no cookie came within `wait_ms`.
  bool StartHandshake(int fd, uint8_t seed, int wait_ms) {
    if (!SendTo(fd, daemon_->port(), ClientHello({}, 0, 0, seed))) return false;
    std::vector<uint8_t> cookie;
    const uint64_t start = posix::MonotonicMs();
    while (cookie.empty() &&
           posix::MonotonicMs() - start < static_cast<uint64_t>(wait_ms)) {
      cookie = CookieOf(Receive(fd, wait_ms));  // skips other flights
    }
    return !cookie.empty() &&
           SendTo(fd, daemon_->port(), ClientHello(cookie, 1, 1, seed));
  }

  // The registry as the daemon stores it: ids, states, keys.
  std::string DeviceList() {
    registry::DeviceRegistry reg(t_.db());
    auto list = reg.List();
    EXPECT_TRUE(list.ok());
    if (!list.ok()) return {};
    std::string text;
    for (const registry::DeviceRecord& d : *list) {
      auto psk = reg.LookupPsk(d.id);
      text += d.id + (d.enabled ? " enabled " : " disabled ") +
              std::to_string(psk.ok() ? psk->size() : 0) + "\n";
    }
    return text;
  }

  testing::TempDatabase t_;
  std::vector<uint8_t> key_;
  std::unique_ptr<testing::DaemonProcess> daemon_;
  posix::CoapClientContext context_;
};

TEST_F(DaemonFloodTest, SpoofedClientHellosDoNotLockDevicesOut) {
  const std::string devices_before = DeviceList();
  const long rss_before = testing::ProcStatusKb(daemon_->pid(), "VmRSS");
  // 1,500 ClientHellos from 1,500 addresses at about 500 per second: libcoap
  // alone kept a session for each for 30 s and ignored new handshakes past
  // its cap (100 by default, 1,024 in the daemon).
  constexpr int kSources = 1500;
  std::vector<int> sockets;
  std::atomic<int> sent{0};
  std::thread flood([&] {
    const std::vector<uint8_t> hello = ClientHello({}, 0, 0);
    for (int i = 0; i < kSources; ++i) {
      const int fd =
          SocketFrom(0x7F010000u + static_cast<uint32_t>((i / 250) << 8) +
                     static_cast<uint32_t>(i % 250 + 1));
      if (fd < 0) break;
      if (SendTo(fd, daemon_->port(), hello)) ++sent;
      sockets.push_back(fd);
      if (i % 10 == 9) usleep(20'000);  // pacing of the flood itself
    }
  });
  // A device connects once the flood is past that cap.
  while (sent.load() < 1200) std::this_thread::yield();
  uint64_t connect_ms = 0;
  const Status connected = Connect(connect_ms);
  flood.join();
  int verify_requests = 0;
  for (int fd : sockets) {
    if (!CookieOf(Receive(fd, verify_requests == 0 ? 1000 : 20)).empty()) {
      ++verify_requests;
    }
    close(fd);
  }
  // And after it.
  uint64_t after_ms = 0;
  const Status after = Connect(after_ms);
  const long rss_after = testing::ProcStatusKb(daemon_->pid(), "VmRSS");
  std::printf(
      "flood: %d spoofed ClientHellos sent, %d HelloVerifyRequests back; "
      "device connected in %llu ms during the flood, %llu ms after; daemon "
      "RSS %ld -> %ld kB\n",
      sent.load(), verify_requests, static_cast<unsigned long long>(connect_ms),
      static_cast<unsigned long long>(after_ms), rss_before, rss_after);
  EXPECT_EQ(sent.load(), kSources);
  EXPECT_TRUE(connected.ok()) << connected.str();
  EXPECT_LT(connect_ms, 2000u);
  EXPECT_TRUE(after.ok()) << after.str();
  // Every spoofed hello was answered statelessly (loopback loses nothing).
  EXPECT_EQ(verify_requests, kSources);
  // The RSS figures are printed, not asserted: libcoap's half-open session
  // is under 1 kB, so 1,500 of them moved the RSS by less than allocator
  // noise (0.9 MB without the admission, release build; ASan's quarantine
  // alone adds more). What tells the two apart is asserted above: every
  // hello answered statelessly and the device getting in.
  EXPECT_EQ(DeviceList(), devices_before);
}

TEST_F(DaemonFloodTest, OneSourceGetsItsHandshakeRateOnly) {
  // 48 handshakes from one IP (48 ports), all completing the cookie
  // exchange and none going further: 32 start, the rest are dropped until
  // some end (the janitor drops a stalled one after 5 s).
  constexpr int kAttempts = 48;
  const long rss_before = testing::ProcStatusKb(daemon_->pid(), "VmRSS");
  const int server_hellos =
      StartHandshakes(daemon_->port(), 0x7F020001u, kAttempts);
  const long rss_after = testing::ProcStatusKb(daemon_->pid(), "VmRSS");
  std::printf(
      "one source: %d cookie exchanges, %d handshakes started; daemon RSS "
      "%ld -> %ld kB (%.1f kB per pending handshake)\n",
      kAttempts, server_hellos, rss_before, rss_after,
      server_hellos > 0
          ? static_cast<double>(rss_after - rss_before) / server_hellos
          : 0.0);
  EXPECT_EQ(server_hellos, 32);
  // Another address is not affected.
  uint64_t ms = 0;
  EXPECT_TRUE(Connect(ms).ok());
}

// The daemon writes its metrics file every second.
class DaemonWithMetricsTest : public DaemonFloodTest {
 protected:
  std::string MetricsPath() const { return t_.dir() + "/gateway.prom"; }
  std::string ServerLines() const override {
    return "[metrics]\nfile = \"" + MetricsPath() +
           "\"\ninterval_seconds = 1\n";
  }
};

// A ClientHello that passes the cookie exchange but that OpenSSL refuses
// (its one cipher suite needs a certificate the daemon does not have):
// libcoap frees the session it made for it without an event. Nothing of it
// may stay behind: not an address the admission passes unanswered (that
// address and port could never complete a handshake again: OpenSSL refuses
// every cookie but the one the admission has just passed), not a handshake
// the janitor walks (a pointer to freed memory), not a live session in the
// metrics.
class DaemonRefusedHelloTest : public DaemonWithMetricsTest {
 protected:
  int64_t Metric(const std::string& name) const {
    return testing::MetricsFileValue(MetricsPath(), name);
  }
};

TEST_F(DaemonRefusedHelloTest, LeavesNothingBehind) {
  constexpr uint16_t kRsaAes128CbcSha = 0x002f;
  const unsigned port = daemon_->port();
  const int fd = SocketFrom(INADDR_LOOPBACK);
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(SendTo(fd, port, ClientHello({}, 0, 0, 1, kRsaAes128CbcSha)));
  const std::vector<uint8_t> cookie = CookieOf(Receive(fd, 2000));
  ASSERT_FALSE(cookie.empty());
  ASSERT_TRUE(SendTo(fd, port, ClientHello(cookie, 1, 1, 1, kRsaAes128CbcSha)));
  // OpenSSL's answer: a fatal alert (record type 21).
  const std::vector<uint8_t> alert = Receive(fd, 2000);
  ASSERT_FALSE(alert.empty());
  EXPECT_EQ(alert[0], 21);
  // The same address and port start a handshake of their own: the
  // admission's HelloVerifyRequest, then a ServerHello (handshake type 2).
  ASSERT_TRUE(StartHandshake(fd, 2, 2000));
  const std::vector<uint8_t> answer = Receive(fd, 2000);
  ASSERT_GT(answer.size(), 13u);
  EXPECT_EQ(answer[0], 22);
  EXPECT_EQ(answer[13], 2) << "handshake type " << int{answer[13]};
  close(fd);
  // The janitor drops that unfinished handshake after 5 s (walking its
  // handshakes); then both sessions are freed, none is alive, and a device
  // gets in.
  const std::string freed =
      "edgeadmm_dtls_session_events_total{event=\"session_freed\"}";
  const uint64_t start = posix::MonotonicMs();
  while (Metric(freed) < 2 && posix::MonotonicMs() - start < 15'000) {
    usleep(100'000);
  }
  EXPECT_EQ(Metric(freed), 2);
  EXPECT_EQ(Metric("edgeadmm_dtls_session_events_total{event=\"handshake_"
                   "started\"}"),
            2);
  EXPECT_EQ(Metric("edgeadmm_dtls_sessions"), 0);
  uint64_t ms = 0;
  const Status connected = Connect(ms);
  EXPECT_TRUE(connected.ok()) << connected.str();
}

class DaemonHungMetricsTest : public DaemonWithMetricsTest {
 protected:
  void SetUp() override {
    ASSERT_EQ(mkfifo((MetricsPath() + ".tmp").c_str(), 0600), 0);
    DaemonWithMetricsTest::SetUp();
  }
};

TEST_F(DaemonHungMetricsTest, AWriteThatHangsDoesNotStopTheLoop) {
  // The first write (at the first tick) blocks in open() for good; later
  // ones (every second) wait behind it.
  for (int i = 0; i < 2; ++i) {
    uint64_t ms = 0;
    const Status connected = Connect(ms);
    EXPECT_TRUE(connected.ok())
        << "connection " << i << ": " << connected.str();
    std::printf("connection %d with the metrics write hung: %llu ms\n", i,
                static_cast<unsigned long long>(ms));
    if (i == 0) usleep(1'500'000);  // lets a second write fall due
  }
  // The shutdown waits 5 s for the last write (MetricsFileWriter), then
  // leaves it behind.
  const uint64_t start = posix::MonotonicMs();
  EXPECT_EQ(daemon_->Terminate(15'000), 0);
  EXPECT_LT(posix::MonotonicMs() - start, 12'000u);
}

class DaemonManySourcesFloodTest : public DaemonFloodTest {
 protected:
  std::string ServerLines() const override {
    return "max_handshakes = 64\nmax_handshakes_per_source = 8\n";
  }
};

TEST_F(DaemonManySourcesFloodTest, ANewDeviceGetsInDuringTheFlood) {
  // 12 sources x 8 sockets = 96 unfinished handshakes for 64 places,
  // renewed with fresh cookies for as long as the flood lasts (replays of a
  // cookie are refused, so the flood does the cookie exchange each time).
  constexpr int kSources = 12;
  constexpr int kSocketsPerSource = 8;
  std::vector<int> sockets;
  for (int a = 0; a < kSources; ++a) {
    for (int i = 0; i < kSocketsPerSource; ++i) {
      const int fd = SocketFrom(0x7F030001u + static_cast<uint32_t>(a));
      ASSERT_GE(fd, 0);
      sockets.push_back(fd);
    }
  }
  std::atomic<bool> stop{false};
  std::atomic<int> started{0};
  std::thread flood([&] {
    for (uint8_t seed = 0; !stop.load(); ++seed) {
      for (int fd : sockets) {
        if (stop.load()) break;
        if (StartHandshake(fd, seed, 200)) ++started;
      }
    }
  });
  // Every place is taken once the first pass is through.
  while (started.load() < kSources * kSocketsPerSource && !HasFailure()) {
    std::this_thread::yield();
  }
  uint64_t connect_ms = 0;
  const Status connected = Connect(connect_ms);
  stop = true;
  flood.join();
  for (int fd : sockets) close(fd);
  std::printf(
      "many sources: %d x %d sockets, %d unfinished handshakes for "
      "64 places; a new device connected in %llu ms (%s)\n",
      kSources, kSocketsPerSource, started.load(),
      static_cast<unsigned long long>(connect_ms), connected.str());
  EXPECT_TRUE(connected.ok()) << connected.str();
}

class DaemonMaxSessionsTest : public DaemonFloodTest {
 protected:
  std::string ServerLines() const override { return "max_sessions = 4\n"; }
};

TEST_F(DaemonMaxSessionsTest, HalfOpenHandshakesDoNotEvictADevice) {
  testing::RawCoapSession device(daemon_->port(), "dev-000", key_);
  ASSERT_TRUE(device.ok());
  // No job runs: the answer is 4.04, over the device's session.
  const int first =
      device.Request(COAP_REQUEST_CODE_GET, wire::kStatusPath, {}).code;
  ASSERT_GT(first, 0);
  // 12 half-open handshakes from 3 sources against 4 sessions in all.
  std::vector<int> sockets;
  int cookies = 0;
  for (int i = 0; i < 12; ++i) {
    const int fd = SocketFrom(0x7F040001u + static_cast<uint32_t>(i % 3));
    ASSERT_GE(fd, 0);
    sockets.push_back(fd);
    cookies += StartHandshake(fd, 0, 1000) ? 1 : 0;
  }
  // The device's next request reaches the daemon's socket after them all.
  const testing::RawAnswer after =
      device.Request(COAP_REQUEST_CODE_GET, wire::kStatusPath, {});
  for (int fd : sockets) close(fd);
  std::printf(
      "max_sessions 4: %d half-open handshakes; the established "
      "device's request after them: %s\n",
      cookies, after.code == first ? "answered" : "no answer");
  EXPECT_EQ(cookies, 12);
  EXPECT_EQ(after.code, first);
}

TEST(DaemonHandshakeCapTest, MaxHandshakesIsTheCapNotOneAbove) {
  testing::TempDatabase t;
  testing::DaemonProcess daemon(
      EDGEADMM_DAEMON_PATH,
      testing::DaemonArgs(t.dir(), t.path(), "max_handshakes = 4\n"));
  ASSERT_TRUE(daemon.started());
  // 6 sources (127.3.0.1 ..), one stalled handshake each.
  EXPECT_EQ(StartHandshakes(daemon.port(), 0x7F030001u, 6, true), 4);
}

}  // namespace
}  // namespace edgeadmm
