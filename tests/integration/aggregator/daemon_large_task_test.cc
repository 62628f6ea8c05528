// Jobs whose round task needs more than one 1024-byte CoAP block (model
// dimension > 250): the daemon sends the task as an Observe notification (or
// a GET response) with Block2 (RFC 7959), and the device must reassemble the
// whole body before decoding it. A device on either transport — libcoap
// (CoapDtlsTransport, what edgeadmm-fleet runs) or the SDK's own CoapClient
// over DtlsPskLink — trains every round of a job of dimension 300 or 1000
// against the real daemon over DTLS-PSK on loopback.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "daemon_process.h"
#include "edgeadmm/coap/coap_client.h"
#include "edgeadmm/dataset_view.h"
#include "edgeadmm/device_client.h"
#include "edgeadmm/fake/memory_storage.h"
#include "edgeadmm/jobs/job_store.h"
#include "edgeadmm/local_steps.h"
#include "edgeadmm/posix/coap_client_context.h"
#include "edgeadmm/posix/coap_dtls_transport.h"
#include "edgeadmm/posix/getrandom_entropy.h"
#include "edgeadmm/registry/device_registry.h"
#include "edgeadmm/wire/protocol.h"
#include "edgeadmm/wire/round_task.h"
#include "poll_until_done.h"
#include "sdk_stack.h"
#include "test_database.h"

namespace edgeadmm {
namespace {

constexpr size_t kSamples = 4;
constexpr int kRounds = 5;

enum class Stack { kLibcoap, kSdk };

// One device: its transport (either stack) and its DeviceClient.
struct Device {
  Device(Stack stack, posix::CoapClientContext& context, unsigned port,
         const std::string& device_id, const std::vector<uint8_t>& psk,
         size_t dim)
      : id(device_id),
        key(psk),
        trainer_bytes(LocalStepWorkspaceBytes(
            AlgorithmKind::kProxAdmm, LossKind::kLogistic, kSamples, dim)),
        scratch(DeviceClient::ComputeScratchBytes(dim)),
        client_bytes(DeviceClient::MemoryBytes(dim)),
        storage_bytes(MemoryStorage::kMaxKeys * DeviceClient::RecordBytes(dim)),
        storage(ByteSpan(storage_bytes.data(), storage_bytes.size())) {
    const ConstByteSpan key_span(reinterpret_cast<const std::byte*>(key.data()),
                                 key.size());
    if (stack == Stack::kLibcoap) {
      posix::CoapDtlsConfig c;
      c.port = static_cast<uint16_t>(port);
      c.identity = id.c_str();
      c.key = key_span;
      c.ack_timeout_ms = 1000;
      libcoap = std::make_unique<posix::CoapDtlsTransport>(context, c);
      transport = libcoap.get();
      return;
    }
    sdk_stack = std::make_unique<SdkStack>(port, id.c_str(), key,
                                           /*ack_timeout_ms=*/1000);
    sdk = sdk_stack->client.get();
    transport = sdk;
  }

  std::string id;
  std::vector<uint8_t> key;  // the transports keep a view of it
  std::vector<std::byte> trainer_bytes;
  std::vector<std::byte> scratch;
  std::vector<std::byte> client_bytes;
  std::vector<std::byte> storage_bytes;
  MemoryStorage storage;
  GetrandomEntropy entropy;
  // libcoap stack
  std::unique_ptr<posix::CoapDtlsTransport> libcoap;
  // SDK stack (sdk: its CoapClient)
  std::unique_ptr<SdkStack> sdk_stack;
  coap::CoapClient* sdk = nullptr;
  Transport* transport = nullptr;
  LocalTrainer trainer;
  DeviceClient client;
};

struct Outcome {
  bool done = false;
  uint32_t tasks_invalid = 0;
  uint32_t uploads_accepted = 0;
  int64_t rounds_committed = 0;
  jobs::JobState state = jobs::JobState::kCreated;
};

// Runs a prox-admm job of dimension `dim` (kRounds rounds, every device in
// every round) with `n` devices until each has seen the end of the job.
Outcome RunJob(Stack stack, size_t dim, bool use_observe, int n = 2) {
  Outcome out;
  testing::TempDatabase t;
  const std::vector<std::string> ids = testing::EnrollDevices(t.db(), n);
  std::string toml =
      testing::JobToml("large", "prox-admm", testing::DefaultPrivacyTable(),
                       "[sampling]\nscheme = \"poisson\"\nq = 1.0\nm_min = 1\n"
                       "deadline_seconds = 30\n");
  toml.replace(toml.find("dimension = 3"), 13,
               "dimension = " + std::to_string(dim));
  const int64_t job = testing::CreateJobOrDie(t.db(), toml);
  EXPECT_TRUE(jobs::SetJobState(t.db(), job, jobs::JobState::kRunning).ok());
  testing::DaemonProcess daemon(EDGEADMM_DAEMON_PATH,
                                testing::DaemonArgs(t.dir(), t.path()));
  EXPECT_TRUE(daemon.started());
  if (!daemon.started()) return out;
  // kSamples logistic records, labels ±1, every device the same.
  std::vector<Real> features(kSamples * dim);
  for (size_t i = 0; i < features.size(); ++i) {
    features[i] = static_cast<Real>(static_cast<int>(i * 7 % 11) - 5) / 10;
  }
  const std::vector<Real> labels = {1, -1, 1, -1};
  auto data = DatasetView::Create(
      Span<const Real>(features.data(), features.size()),
      Span<const Real>(labels.data(), labels.size()), kSamples, dim);
  EXPECT_TRUE(data.ok());
  if (!data.ok()) return out;
  posix::CoapClientContext context;
  EXPECT_TRUE(context.status().ok());
  registry::DeviceRegistry reg(t.db());
  std::vector<std::unique_ptr<Device>> devices;
  for (const std::string& id : ids) {
    auto key = reg.LookupPsk(id);
    EXPECT_TRUE(key.ok());
    if (!key.ok()) return out;
    devices.push_back(
        std::make_unique<Device>(stack, context, daemon.port(), id, *key, dim));
    Device& d = *devices.back();
    DeviceClientConfig c;
    c.device_id = d.id.c_str();
    c.transport = d.transport;
    c.storage = &d.storage;
    c.entropy = &d.entropy;
    c.data = *data;
    c.trainer = &d.trainer;
    c.trainer_workspace =
        ByteSpan(d.trainer_bytes.data(), d.trainer_bytes.size());
    c.compute_scratch = ByteSpan(d.scratch.data(), d.scratch.size());
    c.epsilon_budget = 1e6;
    c.use_observe = use_observe;
    c.task_refresh_ms = 1000;
    EXPECT_EQ(d.client.Init(
                  c, ByteSpan(d.client_bytes.data(), d.client_bytes.size())),
              Status::Ok());
  }
  // Until every device has heard that the job is done, or (the bug) gave
  // up: a device that cannot decode its tasks never gets there (bounded).
  out.done = testing::PollUntilAllDone(
      devices, 20000,
      [](auto& d) {
        if (d.sdk) d.sdk->Poll(0).status().IgnoreError();
      },
      [&] {
        if (stack == Stack::kLibcoap) {
          context.Poll(10).status().IgnoreError();
        } else {
          devices[0]->sdk_stack->udp.Wait(10);
        }
      });
  for (auto& d : devices) {
    const DeviceClientCounters& c = d->client.counters();
    out.tasks_invalid += c.tasks_invalid;
    out.uploads_accepted += c.uploads_accepted;
    std::printf(
        "%s: tasks %u, invalid %u, uploads accepted %u, transport "
        "errors %u\n",
        d->id.c_str(), c.tasks_received, c.tasks_invalid, c.uploads_accepted,
        c.transport_errors);
  }
  devices.clear();
  EXPECT_EQ(daemon.Terminate(), 0);
  t.Reopen();
  auto rows = t.db().Prepare(
      "SELECT COUNT(DISTINCT round_id) FROM uploads WHERE job_id = ?");
  EXPECT_TRUE(rows.ok());
  if (rows.ok()) {
    rows->Bind(1, job);
    EXPECT_TRUE(rows->StepRow().ok());
    out.rounds_committed = rows->ColumnInt(0);
  }
  auto state = jobs::LoadJob(t.db(), job);
  EXPECT_TRUE(state.ok());
  if (state.ok()) out.state = state->state;
  return out;
}

void ExpectWholeJob(const Outcome& out, int n = 2) {
  EXPECT_TRUE(out.done);
  EXPECT_EQ(out.tasks_invalid, 0u);
  EXPECT_EQ(out.uploads_accepted, static_cast<uint32_t>(kRounds * n));
  EXPECT_EQ(out.rounds_committed, kRounds);
  EXPECT_EQ(out.state, jobs::JobState::kCompleted);
}

// Just above one block (251 is the first failing dimension), a few blocks,
// and many: the notification (and its registration response) carries the
// first block, the transport fetches the rest.
TEST(DaemonLargeTaskTest, LibcoapObserveDimension251) {
  ExpectWholeJob(RunJob(Stack::kLibcoap, 251, /*use_observe=*/true));
}
TEST(DaemonLargeTaskTest, LibcoapObserveDimension300) {
  ExpectWholeJob(RunJob(Stack::kLibcoap, 300, /*use_observe=*/true));
}
TEST(DaemonLargeTaskTest, LibcoapObserveDimension1000) {
  ExpectWholeJob(RunJob(Stack::kLibcoap, 1000, /*use_observe=*/true));
}
// GET v1/task every task_refresh_ms instead of Observe.
TEST(DaemonLargeTaskTest, LibcoapGetDimension1000) {
  ExpectWholeJob(RunJob(Stack::kLibcoap, 1000, /*use_observe=*/false));
}
// The largest dimension the wire carries (EDGEADMM_CFG_MAX_FEATURES, 8192
// by default): a task of 4 bytes per coordinate plus its header, 33 blocks.
TEST(DaemonLargeTaskTest, LibcoapObserveLargestDimension) {
  ExpectWholeJob(
      RunJob(Stack::kLibcoap, wire::kMaxDimension, /*use_observe=*/true));
}
TEST(DaemonLargeTaskTest, SdkClientObserveDimension300) {
  ExpectWholeJob(RunJob(Stack::kSdk, 300, /*use_observe=*/true));
}
TEST(DaemonLargeTaskTest, SdkClientObserveDimension1000) {
  ExpectWholeJob(RunJob(Stack::kSdk, 1000, /*use_observe=*/true));
}
TEST(DaemonLargeTaskTest, SdkClientObserveLargestDimension) {
  ExpectWholeJob(
      RunJob(Stack::kSdk, wire::kMaxDimension, /*use_observe=*/true));
}
TEST(DaemonLargeTaskTest, SdkClientGetDimension1000) {
  ExpectWholeJob(RunJob(Stack::kSdk, 1000, /*use_observe=*/false));
}

}  // namespace
}  // namespace edgeadmm
