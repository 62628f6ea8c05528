// The SDK's own secure CoAP stack against the real daemon: CoapClient over
// DtlsPskLink (Mbed TLS, DTLS 1.2 PSK) over a UDP DatagramLink, talking to
// edgeadmm-aggregatord (libcoap + OpenSSL) on loopback — the stack a board
// without libcoap runs (issue 12), here on the host.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
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
#include "edgeadmm/local_steps.h"
#include "edgeadmm/posix/getrandom_entropy.h"
#include "edgeadmm/posix/monotonic_clock.h"
#include "edgeadmm/posix/udp_datagram_link.h"
#include "edgeadmm/registry/device_registry.h"
#include "edgeadmm/wire/coap_code.h"
#include "edgeadmm/wire/protocol.h"
#include "edgeadmm/wire/round_task.h"
#include "poll_until_done.h"
#include "sdk_stack.h"
#include "test_database.h"
#include "udp_relay.h"
#include "wire_bodies.h"

namespace edgeadmm {
namespace {

class DaemonSdkClientTest : public ::testing::Test {
 protected:
  void SetUp() override { Start(3); }
  // Enrolls dev-000, creates a one-device job of `dimension` and starts
  // the daemon.
  void Start(int dimension) {
    registry::DeviceRegistry reg(t_.db());
    auto psk = reg.Add("dev-000");
    ASSERT_TRUE(psk.ok());
    key_ = *psk;
    job_id_ = testing::StartOneDeviceJob(t_.db(), "sdk", dimension);
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

// Streamed bodies (transport.h BodySource/BodySink, issue 15) on a job of
// dimension 1000: its task (4 Block2 blocks) into a sink through a 128-byte
// response buffer is the task a plain buffer gets (but for the time left
// to the deadline, computed per send), and an update read
// block by block from a source (4 Block1 blocks) is accepted (2.04).
class DaemonSdkStreamingTest : public DaemonSdkClientTest {
 protected:
  static constexpr size_t kDimension = 1000;
  void SetUp() override { Start(kDimension); }
};

// Serves a body the test holds (a device would compute each block),
// counting the reads.
class VectorSource final : public BodySource {
 public:
  explicit VectorSource(const std::vector<uint8_t>& body) : body_(body) {}
  size_t size() const override { return body_.size(); }
  Status Read(size_t offset, ByteSpan out) override {
    ++reads;
    if (offset > body_.size() || out.size() > body_.size() - offset) {
      return Status::OutOfRange();
    }
    std::memcpy(out.data(), body_.data() + offset, out.size());
    return Status::Ok();
  }
  size_t reads = 0;

 private:
  const std::vector<uint8_t>& body_;
};

// Appends what it is given (offset 0 again starts over; a gap is refused).
class VectorSink final : public BodySink {
 public:
  Status Write(size_t offset, ConstByteSpan bytes) override {
    ++writes;
    if (offset != body.size()) {
      if (offset != 0) return Status::DataLoss();
      body.clear();
    }
    const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
    body.insert(body.end(), p, p + bytes.size());
    return Status::Ok();
  }
  std::vector<uint8_t> body;
  size_t writes = 0;
};

TEST_F(DaemonSdkStreamingTest, TaskIntoASinkAndAnUpdateFromASource) {
  SdkStack device(daemon_->port(), "dev-000", key_);
  ASSERT_TRUE(device.client->streams_bodies());
  // The task into a buffer large enough for it.
  TransportRequest get;
  get.path = wire::kTaskPath;
  std::vector<uint8_t> whole(16384);
  TransportResult r;
  ASSERT_TRUE(device.client
                  ->Request(get,
                            ByteSpan(reinterpret_cast<std::byte*>(whole.data()),
                                     whole.size()),
                            20000, r)
                  .ok())
      << r.status.str();
  ASSERT_EQ(r.code, wire::kCoapContent);
  whole.resize(r.payload_size);
  ASSERT_GT(whole.size(), 3u * 1024);  // 4 blocks: Block2 did the work

  // The same task into a sink, through a 128-byte response buffer.
  VectorSink sink;
  get.response_sink = &sink;
  std::byte small[128];
  ASSERT_TRUE(
      device.client->Request(get, ByteSpan(small, sizeof(small)), 20000, r)
          .ok())
      << r.status.str();
  ASSERT_EQ(r.code, wire::kCoapContent);
  EXPECT_EQ(r.payload_size, sink.body.size());
  EXPECT_EQ(sink.writes, (sink.body.size() + 1023) / 1024);
  // The same task but for deadline_ms (the time left, computed per send,
  // a varint of varying length): the same header otherwise, and the model
  // (the last field, float32 LE) byte for byte.
  auto decode = [](const std::vector<uint8_t>& body, std::vector<Real>& z) {
    wire::DecodedRoundTask t{};
    EXPECT_TRUE(
        wire::DecodeRoundTask(
            ConstByteSpan(reinterpret_cast<const std::byte*>(body.data()),
                          body.size()),
            Span<Real>(z.data(), z.size()), Span<Real>(), t)
            .ok());
    return t;
  };
  std::vector<Real> z(kDimension);
  std::vector<Real> z_whole(kDimension);
  const wire::DecodedRoundTask task = decode(sink.body, z);
  const wire::DecodedRoundTask plain = decode(whole, z_whole);
  EXPECT_EQ(task.header.job_id, plain.header.job_id);
  EXPECT_EQ(task.header.round_id, plain.header.round_id);
  EXPECT_EQ(task.header.role, plain.header.role);
  EXPECT_EQ(task.header.algorithm, plain.header.algorithm);
  EXPECT_EQ(task.header.dimension, plain.header.dimension);
  EXPECT_EQ(z, z_whole);
  const size_t model_bytes = 4 * kDimension;
  ASSERT_GT(sink.body.size(), model_bytes);
  EXPECT_TRUE(std::equal(sink.body.end() - model_bytes, sink.body.end(),
                         whole.end() - model_bytes));
  const size_t longer = std::max(sink.body.size(), whole.size());
  EXPECT_LE(longer - std::min(sink.body.size(), whole.size()), 4u);

  // An update of its round, read from a source block by block.
  ASSERT_EQ(task.header.role, edgeadmm_wire_Role_ROLE_PARTICIPATE);
  std::vector<double> delta(kDimension);
  for (size_t i = 0; i < kDimension; ++i) {
    delta[i] = static_cast<double>(static_cast<int>(i % 17) - 8) / 64;
  }
  const std::vector<uint8_t> update = testing::EncodeUpdateBody(
      "dev-000", task.header.job_id, task.header.round_id, delta);
  ASSERT_GT(update.size(), 3u * 1024);
  VectorSource source(update);
  TransportRequest post;
  post.method = CoapMethod::kPost;
  post.path = wire::kUpdatePath;
  post.content_format = wire::kUpdateFormat;
  post.payload_source = &source;
  std::byte status_body[128];
  ASSERT_TRUE(
      device.client
          ->Request(post, ByteSpan(status_body, sizeof(status_body)), 20000, r)
          .ok())
      << r.status.str();
  EXPECT_EQ(r.code, wire::kCoapChanged);
  EXPECT_GE(source.reads, (update.size() + 1023) / 1024);
  // The daemon stored it: the round's one upload.
  EXPECT_EQ(daemon_->Terminate(), 0);
  t_.Reopen();
  auto rows = t_.db().Prepare(
      "SELECT COUNT(*) FROM uploads WHERE job_id = ? AND round_id = ?");
  ASSERT_TRUE(rows.ok());
  rows->Bind(1, job_id_);
  rows->Bind(2, static_cast<int64_t>(task.header.round_id));
  ASSERT_TRUE(rows->StepRow().ok());
  EXPECT_EQ(rows->ColumnInt(0), 1);
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
  SdkDevice(unsigned port, const std::string& device_id,
            const std::vector<uint8_t>& psk, uint32_t ack_timeout_ms,
            uint32_t handshake_min_ms)
      : id(device_id),
        key(psk),
        stack(port, id.c_str(), key, ack_timeout_ms, handshake_min_ms),
        storage(ByteSpan(storage_bytes, sizeof(storage_bytes))) {}
  std::string id;
  std::vector<uint8_t> key;  // the stack keeps a view of it
  SdkStack stack;
  alignas(16) std::byte trainer_bytes[LocalStepWorkspaceBytes(
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
  // A heartbeat of 1 s: a device whose notifications were lost refreshes
  // its task every 2 s (twice the heartbeat) and hears of a new round or
  // the job's end that soon.
  testing::DaemonProcess daemon(
      EDGEADMM_DAEMON_PATH,
      testing::DaemonArgs(t.dir(), t.path(), "task_heartbeat_seconds = 1\n"));
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
    // Over the lossy relays, timers of a quarter of the defaults: the
    // retransmissions the loss calls for come sooner, the test is shorter.
    devices.push_back(std::make_unique<SdkDevice>(
        port, id, *key, loss > 0 ? 500 : 2000, loss > 0 ? 250 : 1000));
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
    c.retry_max_ms = 4000;  // a failed exchange is retried within 4-6 s
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
