// The SDK's own secure CoAP stack against the real daemon: CoapClient over
// DtlsPskLink (Mbed TLS, DTLS 1.2 PSK) over a UDP DatagramLink, talking to
// edgeadmm-aggregatord (libcoap + OpenSSL) on loopback — the stack a board
// without libcoap runs (issue 12), here on the host.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "daemon_process.h"
#include "edgeadmm/coap/coap_client.h"
#include "edgeadmm/dataset_view.h"
#include "edgeadmm/device_client.h"
#include "edgeadmm/drbg.h"
#include "edgeadmm/dtls/dtls_psk_link.h"
#include "edgeadmm/fake/memory_storage.h"
#include "edgeadmm/jobs/job_store.h"
#include "edgeadmm/local_trainer.h"
#include "edgeadmm/posix/getrandom_entropy.h"
#include "edgeadmm/posix/monotonic_clock.h"
#include "edgeadmm/posix/udp_datagram_link.h"
#include "edgeadmm/registry/device_registry.h"
#include "edgeadmm/wire/coap_code.h"
#include "edgeadmm/wire/protocol.h"
#include "edgeadmm/wire/round_task.h"
#include "poll_until_done.h"
#include "test_database.h"
#include "udp_relay.h"

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
    job_id_ = testing::StartOneDeviceJob(t_.db(), "sdk");
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

// A whole job on the SDK stack: three DeviceClients, each over its own
// CoapClient + DtlsPskLink session, train five rounds of prox-admm (p = 3)
// with the daemon; every upload is accepted exactly once.
constexpr size_t kDim = 3;
constexpr size_t kSamples = 4;

struct SdkDevice {
  explicit SdkDevice(unsigned port, const std::string& device_id,
                     const std::vector<uint8_t>& psk)
      : id(device_id),
        key(psk),
        stack(port, id.c_str(), key),
        storage(ByteSpan(storage_bytes, sizeof(storage_bytes))) {}
  std::string id;
  std::vector<uint8_t> key;  // the stack keeps a view of it
  SdkStack stack;
  alignas(16) std::byte trainer_bytes[LocalTrainer::WorkspaceBytes(
      AlgorithmKind::kProxAdmm, LossKind::kLogistic, kSamples, kDim)];
  alignas(16) std::byte scratch[DeviceClient::ComputeScratchBytes(kDim)];
  alignas(16) std::byte client_bytes[DeviceClient::MemoryBytes(kDim)];
  alignas(16) std::byte
      storage_bytes[MemoryStorage::kMaxKeys * DeviceClient::RecordBytes(kDim)];
  MemoryStorage storage;
  LocalTrainer trainer;
  DeviceClient client;
};

// Runs the job; with `loss` > 0 every device talks through its own relay
// that drops that fraction of the datagrams in each direction.
void RunSdkJob(double loss) {
  testing::TempDatabase t;
  const std::vector<std::string> ids = testing::EnrollDevices(t.db(), 3);
  const int64_t job = testing::StartEveryoneJob(t.db(), "sdk-job",
                                                testing::DefaultPrivacyTable());
  testing::DaemonProcess daemon(EDGEADMM_DAEMON_PATH,
                                testing::DaemonArgs(t.dir(), t.path()));
  ASSERT_TRUE(daemon.started());
  // Four logistic records in 3 features, labels ±1 (every device the same).
  const std::vector<Real> features = {1.0, 0.5,  -0.2, -0.3, 1.0, 0.4,
                                      0.8, -1.0, 0.1,  -0.6, 0.2, 1.0};
  const std::vector<Real> labels = {1, -1, 1, -1};
  auto data = DatasetView::Create(
      Span<const Real>(features.data(), features.size()),
      Span<const Real>(labels.data(), labels.size()), kSamples, kDim);
  ASSERT_TRUE(data.ok());
  registry::DeviceRegistry reg(t.db());
  std::vector<std::unique_ptr<testing::UdpRelay>> relays;
  std::vector<std::unique_ptr<SdkDevice>> devices;
  for (const std::string& id : ids) {
    auto key = reg.LookupPsk(id);
    ASSERT_TRUE(key.ok());
    unsigned port = daemon.port();
    if (loss > 0) {
      relays.push_back(std::make_unique<testing::UdpRelay>(
          static_cast<uint16_t>(daemon.port()), loss,
          static_cast<uint32_t>(relays.size() + 1)));
      ASSERT_TRUE(relays.back()->ok());
      port = relays.back()->port();
    }
    devices.push_back(std::make_unique<SdkDevice>(port, id, *key));
    SdkDevice& d = *devices.back();
    DeviceClientConfig c;
    c.device_id = d.id.c_str();
    c.transport = d.stack.client.get();
    c.storage = &d.storage;
    c.entropy = &d.stack.entropy;
    c.data = *data;
    c.trainer = &d.trainer;
    c.trainer_workspace = ByteSpan(d.trainer_bytes, sizeof(d.trainer_bytes));
    c.compute_scratch = ByteSpan(d.scratch, sizeof(d.scratch));
    c.epsilon_budget = 1e6;
    c.task_refresh_ms = 2000;
    ASSERT_EQ(
        d.client.Init(c, ByteSpan(d.client_bytes, sizeof(d.client_bytes))),
        Status::Ok());
  }
  // Until every device has heard that the job is done (bounded: 240 s).
  EXPECT_TRUE(testing::PollUntilAllDone(
      devices, 240000,
      [](auto& d) { d.stack.client->Poll(0).status().IgnoreError(); },
      [&] { devices[0]->stack.udp.Wait(10); }));
  int64_t acknowledged = 0;  // uploads the devices know were accepted
  int64_t computed = 0;      // uploads made (one per step)
  for (auto& d : devices) {
    const DeviceClientCounters& c = d->client.counters();
    // Without loss every device is in every round; with loss a device may
    // miss a round's deadline, and the receipt of an accepted upload may be
    // lost (the device resends it and gets "duplicate").
    if (loss == 0) {
      EXPECT_EQ(c.uploads_accepted, 5u) << d->id;
    }
    EXPECT_GE(c.steps_computed, c.uploads_accepted + c.uploads_duplicate)
        << d->id;
    acknowledged += c.uploads_accepted + c.uploads_duplicate;
    computed += c.steps_computed;
    std::printf(
        "%s: steps %u, uploads accepted %u, duplicate %u, transport "
        "errors %u, CoAP retransmissions %u\n",
        d->id.c_str(), c.steps_computed, c.uploads_accepted,
        c.uploads_duplicate, c.transport_errors,
        d->stack.client->retransmissions());
  }
  EXPECT_EQ(daemon.Terminate(), 0);
  t.Reopen();
  // The store: one row per accepted upload, each (device, round) once: at
  // least the uploads the devices were told were accepted, at most those
  // they made (a receipt can be lost for good when the round ends first);
  // the job completed its five rounds.
  auto rows = t.db().Prepare(
      "SELECT COUNT(*), COUNT(DISTINCT device_id || '/' || round_id) FROM "
      "uploads WHERE job_id = ?");
  ASSERT_TRUE(rows.ok());
  rows->Bind(1, job);
  ASSERT_TRUE(rows->StepRow().ok());
  EXPECT_EQ(rows->ColumnInt(0), rows->ColumnInt(1));
  EXPECT_GE(rows->ColumnInt(0), acknowledged);
  EXPECT_LE(rows->ColumnInt(0), computed);
  if (loss == 0) {
    EXPECT_EQ(acknowledged, 15);
  }
  auto state = jobs::LoadJob(t.db(), job);
  ASSERT_TRUE(state.ok());
  EXPECT_EQ(state->state, jobs::JobState::kCompleted);
}

TEST(DaemonSdkJobTest, ThreeDevicesTrainAJobOverTheSdkStack) { RunSdkJob(0.0); }

// 20% of the datagrams lost in each direction (handshakes included): the
// job completes, every upload still accepted exactly once.
TEST(DaemonSdkJobTest, TheJobCompletesUnderTwentyPercentLoss) {
  RunSdkJob(0.2);
}

}  // namespace
}  // namespace edgeadmm
