// The SDK's own secure CoAP stack against the real daemon: CoapClient over
// DtlsPskLink (Mbed TLS, DTLS 1.2 PSK) over a UDP DatagramLink, talking to
// edgeadmm-aggregatord (libcoap + OpenSSL) on loopback — the stack a board
// without libcoap runs (issue 12), here on the host.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "daemon_process.h"
#include "edgeadmm/coap/coap_client.h"
#include "edgeadmm/drbg.h"
#include "edgeadmm/dtls/dtls_psk_link.h"
#include "edgeadmm/jobs/job_store.h"
#include "edgeadmm/posix/getrandom_entropy.h"
#include "edgeadmm/posix/monotonic_clock.h"
#include "edgeadmm/posix/udp_datagram_link.h"
#include "edgeadmm/registry/device_registry.h"
#include "edgeadmm/wire/coap_code.h"
#include "edgeadmm/wire/protocol.h"
#include "edgeadmm/wire/round_task.h"
#include "test_database.h"

namespace edgeadmm {
namespace {

uint64_t NowMs() { return posix::MonotonicMs(); }

// The stack of one device.
struct SdkStack {
  SdkStack(unsigned port, const char* identity,
           const std::vector<uint8_t>& key) {
    EXPECT_TRUE(udp.Open("127.0.0.1", static_cast<uint16_t>(port)).ok());
    EXPECT_TRUE(
        drbg.Init(entropy, ConstByteSpan(reinterpret_cast<const std::byte*>(
                                             "sdk-client-test"),
                                         15))
            .ok());
    dtls::DtlsPskLinkConfig d;
    d.lower = &udp;
    d.now_ms = &NowMs;
    d.random = &drbg;
    d.identity = identity;
    d.key = ConstByteSpan(reinterpret_cast<const std::byte*>(key.data()),
                          key.size());
    d.handshake_max_ms = 4000;
    secure = std::make_unique<dtls::DtlsPskLink>(d);
    coap::CoapClientConfig c;
    c.link = secure.get();
    c.now_ms = &NowMs;
    c.tx_buffer = ByteSpan(tx, sizeof(tx));
    c.rx_buffer = ByteSpan(rx, sizeof(rx));
    c.ack_timeout_ms = 2000;
    client = std::make_unique<coap::CoapClient>(c);
  }

  TransportResult Get(const char* path) {
    TransportRequest request;
    request.path = path;
    TransportResult result;
    client->Request(request, ByteSpan(body, sizeof(body)), 20000, result)
        .IgnoreError();  // the outcome is result.status
    return result;
  }

  posix::UdpDatagramLink udp;
  GetrandomEntropy entropy;
  Drbg drbg;
  std::unique_ptr<dtls::DtlsPskLink> secure;
  std::unique_ptr<coap::CoapClient> client;
  std::byte tx[1200];
  std::byte rx[1200];
  std::byte body[4096];
};

class DaemonSdkClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    registry::DeviceRegistry reg(t_.db());
    auto psk = reg.Add("dev-000");
    ASSERT_TRUE(psk.ok());
    key_ = *psk;
    const int64_t job = testing::CreateJobOrDie(
        t_.db(),
        testing::JobToml("sdk", "prox-admm", testing::DefaultPrivacyTable(),
                         "[sampling]\nscheme = \"fixed\"\nm = 1\nm_min = 1\n"
                         "deadline_seconds = 60\nseed = 5\n"));
    job_id_ = job;
    ASSERT_TRUE(jobs::SetJobState(t_.db(), job, jobs::JobState::kRunning).ok());
    daemon_ = std::make_unique<testing::DaemonProcess>(
        EDGEADMM_DAEMON_PATH, testing::DaemonArgs(t_.dir(), t_.path()));
    ASSERT_TRUE(daemon_->started());
  }

  testing::TempDatabase t_;
  std::vector<uint8_t> key_;
  int64_t job_id_ = 0;
  std::unique_ptr<testing::DaemonProcess> daemon_;
};

TEST_F(DaemonSdkClientTest, StatusAndTaskOverMbedTlsDtls) {
  SdkStack device(daemon_->port(), "dev-000", key_);
  const TransportResult status = device.Get(wire::kStatusPath);
  ASSERT_TRUE(status.status.ok()) << status.status.str();
  EXPECT_EQ(status.code, wire::kCoapContent);
  EXPECT_TRUE(device.secure->established());
  const TransportResult task = device.Get(wire::kTaskPath);
  ASSERT_TRUE(task.status.ok()) << task.status.str();
  ASSERT_EQ(task.code, wire::kCoapContent);
  // The task decodes and is this job's.
  std::vector<Real> z(3);
  wire::DecodedRoundTask decoded{};
  ASSERT_TRUE(wire::DecodeRoundTask(
                  ConstByteSpan(device.body, task.payload_size),
                  Span<Real>(z.data(), z.size()), Span<Real>(), decoded)
                  .ok());
  EXPECT_EQ(decoded.header.job_id, static_cast<uint64_t>(job_id_));
}

TEST_F(DaemonSdkClientTest, WrongKeyFailsTheHandshake) {
  std::vector<uint8_t> wrong = key_;
  wrong[0] ^= 0x5a;
  SdkStack device(daemon_->port(), "dev-000", wrong);
  const TransportResult r = device.Get(wire::kStatusPath);
  EXPECT_EQ(r.status, Status::Unauthenticated()) << r.status.str();
  EXPECT_FALSE(device.secure->established());
}

}  // namespace
}  // namespace edgeadmm
