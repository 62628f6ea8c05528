// A streaming admm-sharing party (papers 000/003; DeviceClient with
// stream_rows, docs/sdk.md "Streaming party") on the SDK's own secure stack
// — CoapClient over DtlsPskLink (Mbed TLS, DTLS 1.2 PSK) over UDP, what a
// board without libcoap runs — against the real daemon, on the full a9a
// training set (N = 32,561 records; 2 parties: columns 1-66 and 67-123).
// Every round the party takes u_m and y (N values each, 255 Block2 blocks)
// row block by row block and sends its share (N values, 128 Block1 blocks)
// while producing it, so it never holds an N-vector: its whole memory (the
// client, its trainer, the scratch, the CoAP datagrams) is checked to be
// smaller than ONE float32 N-vector. Its models equal those of the same job
// with a party that holds the whole vectors (to rounding: the sums run in
// another order).
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "daemon_process.h"
#include "edgeadmm/dataio/dense_dataset.h"
#include "edgeadmm/dataio/libsvm_reader.h"
#include "edgeadmm/device_client.h"
#include "edgeadmm/fake/memory_storage.h"
#include "edgeadmm/fake/test_entropy.h"
#include "edgeadmm/jobs/job_report.h"
#include "edgeadmm/jobs/job_store.h"
#include "edgeadmm/local_steps.h"
#include "edgeadmm/registry/device_registry.h"
#include "sdk_stack.h"
#include "test_database.h"

namespace edgeadmm {
namespace {

constexpr size_t kRecords = 32561;  // all of a9a
constexpr size_t kColumns[2] = {66, 57};
constexpr size_t kStreamRows = 256;
constexpr int kRounds = 3;

std::string DataDir() {
  const char* dir = std::getenv("EDGEADMM_DATA");
  return dir != nullptr ? dir : "../shared/data";
}

ByteSpan Aligned(std::vector<std::byte>& v) {
  const auto address = reinterpret_cast<uintptr_t>(v.data());
  const size_t pad = (16 - address % 16) % 16;
  return ByteSpan(v.data() + pad, v.size() - pad);
}

// One party: its column block, the SDK's secure CoAP stack, a client.
struct Party {
  Party(const DenseDataset& block, unsigned port, const std::string& device_id,
        const std::vector<uint8_t>& key, size_t stream_rows)
      : id(device_id), psk(key), data(block), stack(port, id.c_str(), psk) {
    const size_t p = block.dim;
    const size_t vector = stream_rows > 0 ? 0 : kRecords;
    trainer_ws.resize(LocalStepWorkspaceBytes(AlgorithmKind::kAdmmSharing,
                                              LossKind::kLogistic, kRecords,
                                              p) +
                      16);
    scratch.resize(DeviceClient::ComputeScratchBytes(p, vector) + 16);
    memory.resize(DeviceClient::MemoryBytes(p, vector, stream_rows) + 16);
    storage_bytes.resize(MemoryStorage::kMaxKeys *
                         DeviceClient::RecordBytes(p, vector, stream_rows));
    storage = std::make_unique<MemoryStorage>(
        ByteSpan(storage_bytes.data(), storage_bytes.size()));
    bytes = trainer_ws.size() + scratch.size() + memory.size() +
            DeviceClient::RecordBytes(p, vector, stream_rows) +
            sizeof(stack.tx) + sizeof(stack.rx);

    DeviceClientConfig config;
    config.device_id = id.c_str();
    config.transport = stack.client.get();
    config.storage = storage.get();
    config.entropy = &entropy;
    config.data = *data.View();
    config.trainer = &trainer;
    config.trainer_workspace = Aligned(trainer_ws);
    config.compute_scratch = Aligned(scratch);
    config.max_vector = vector;
    config.stream_rows = stream_rows;
    config.allow_unaccounted_steps = true;  // noiseless shares
    config.use_observe = false;
    config.task_refresh_ms = 200;
    config.retry_min_ms = 200;
    EXPECT_EQ(client.Init(config, Aligned(memory)), Status::Ok());
  }

  std::string id;
  std::vector<uint8_t> psk;
  DenseDataset data;
  SdkStack stack;  // CoapClient over DtlsPskLink over UDP
  TestEntropy entropy{11};
  std::vector<std::byte> trainer_ws, scratch, memory, storage_bytes;
  std::unique_ptr<MemoryStorage> storage;
  LocalTrainer trainer;
  DeviceClient client;
  size_t bytes = 0;  // everything the party's client needs, with its record
};

struct Outcome {
  std::vector<std::vector<double>> x;  // x̃_m of each party at the end
  size_t party_bytes[2] = {0, 0};
  double seconds = 0;
  bool completed = false;
};

Outcome RunJob(const DenseDataset& a9a, size_t stream_rows) {
  testing::TempDatabase t;
  registry::DeviceRegistry reg(t.db());
  std::vector<std::vector<uint8_t>> keys;
  for (const char* id : {"dev-000", "dev-001"}) {
    auto psk = reg.Add(id);
    EXPECT_TRUE(psk.ok());
    keys.push_back(*psk);
  }
  const std::string toml =
      "[job]\nname = \"full\"\nalgorithm = \"admm-sharing\"\nloss = "
      "\"logistic\"\ndimension = 123\nrounds = " +
      std::to_string(kRounds) +
      "\n[admm_sharing]\nparties = 2\ncolumns = [66, 57]\nrecords = 32561\n"
      "rho = 1.2285e-5\nlambda = 1e-2\nlabels = \"" +
      DataDir() +
      "/a9a.xz\"\nnoise = \"none\"\n"
      "[sampling]\ndeadline_seconds = 120\n";
  const int64_t job = testing::CreateJobOrDie(t.db(), toml);
  EXPECT_TRUE(jobs::SetJobState(t.db(), job, jobs::JobState::kRunning).ok());
  testing::DaemonProcess daemon(EDGEADMM_DAEMON_PATH,
                                testing::DaemonArgs(t.dir(), t.path()));
  EXPECT_TRUE(daemon.started());
  Outcome run;
  if (!daemon.started()) return run;
  std::vector<std::unique_ptr<Party>> parties;
  size_t first = 0;
  for (size_t m = 0; m < 2; ++m) {
    auto block = ColumnBlock(a9a, first, kColumns[m], kRecords);
    EXPECT_TRUE(block.ok());
    first += kColumns[m];
    parties.push_back(std::make_unique<Party>(
        *block, daemon.port(), m == 0 ? "dev-000" : "dev-001", keys[m],
        m == 0 ? stream_rows : 0));
    run.party_bytes[m] = parties.back()->bytes;
  }
  const auto start = std::chrono::steady_clock::now();
  const auto limit = start + std::chrono::seconds(240);
  while (std::chrono::steady_clock::now() < limit) {
    bool busy = false;
    for (auto& p : parties) {
      EXPECT_EQ(p->client.Poll(NowMs()), Status::Ok());
      p->stack.client->Poll(0).status().IgnoreError();
      busy = busy || p->client.state() == ClientState::kFetchingTask ||
             p->client.state() == ClientState::kUploading;
    }
    if (parties[0]->client.state() == ClientState::kDone &&
        parties[1]->client.state() == ClientState::kDone) {
      break;
    }
    if (!busy) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  run.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  auto status = jobs::LoadJobStatus(t.db(), "full");
  run.completed =
      status.ok() && status->job.state == jobs::JobState::kCompleted;
  for (auto& p : parties) {
    EXPECT_EQ(p->client.counters().steps_computed,
              static_cast<uint32_t>(kRounds));
    EXPECT_EQ(p->client.counters().steps_refused, 0u);
    const Span<const Real> x = p->trainer.state().primary;
    run.x.emplace_back(x.begin(), x.end());
  }
  return run;
}

TEST(DaemonStreamingPartyTest, FullA9aPartyNeverHoldsAnNVector) {
  auto a9a = ReadLibsvmFile(DataDir() + "/a9a.xz", 123);
  ASSERT_TRUE(a9a.ok()) << a9a.error().message();
  ASSERT_EQ(a9a->samples, kRecords);
  const Outcome whole = RunJob(*a9a, 0);
  ASSERT_TRUE(whole.completed);
  const Outcome streamed = RunJob(*a9a, kStreamRows);
  ASSERT_TRUE(streamed.completed);
  // Memory: party 1 streams, party 2 holds the vectors.
  const size_t one_vector = 4 * kRecords;  // one float32 N-vector
  std::printf(
      "streaming party: %zu bytes in all (one float32 N-vector: %zu bytes, "
      "ratio %.3f); whole-vector party: %zu bytes (ratio %.1f); "
      "%d rounds in %.1f s streamed, %.1f s whole\n",
      streamed.party_bytes[0], one_vector,
      double(streamed.party_bytes[0]) / one_vector, whole.party_bytes[1],
      double(whole.party_bytes[1]) / one_vector, kRounds, streamed.seconds,
      whole.seconds);
  EXPECT_LT(streamed.party_bytes[0], one_vector);
  EXPECT_GT(whole.party_bytes[1], 4 * one_vector);
  // The same models.
  double largest = 0;
  for (size_t m = 0; m < 2; ++m) {
    ASSERT_EQ(streamed.x[m].size(), kColumns[m]);
    ASSERT_EQ(whole.x[m].size(), kColumns[m]);
    for (size_t c = 0; c < kColumns[m]; ++c) {
      EXPECT_NEAR(streamed.x[m][c], whole.x[m][c],
                  1e-9 * (1 + std::fabs(whole.x[m][c])));
      largest = std::fmax(largest, std::fabs(whole.x[m][c]));
    }
  }
  EXPECT_GT(largest, 1e-2);  // the models moved
}

}  // namespace
}  // namespace edgeadmm
