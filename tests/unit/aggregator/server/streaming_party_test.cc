// A streaming admm-sharing party (DeviceClient with stream_rows; docs/sdk.md,
// "Streaming party") against the gateway's request handler and round engine
// (no sockets: LoopbackTransport in streaming mode). The party never holds an
// N-vector: its task is decoded row block by row block and its share
// produced while it is sent. Checked against the same job run by a party
// that takes the whole vectors:
//   - noiseless: the streamed party's x̃_m after every round, and the
//     gateway's score of the job, equal the whole-vector run's (to
//     rounding: the sums run in another order);
//   - rigorous noise: an upload resent after a lost receipt (a reboot) is
//     bit-identical, so a share row is released once per round; the noise
//     is there (the share differs from D_m x̃_m).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "edgeadmm/device_client.h"
#include "edgeadmm/fake/coap_endpoint.h"
#include "edgeadmm/fake/loopback_transport.h"
#include "edgeadmm/fake/memory_storage.h"
#include "edgeadmm/fake/test_entropy.h"
#include "edgeadmm/jobs/job_report.h"
#include "edgeadmm/rounds/round_accountant.h"
#include "edgeadmm/server/request_handler.h"
#include "edgeadmm/static_device_client.h"
#include "edgeadmm/wire/protocol.h"
#include "edgeadmm/wire/update.h"
#include "handler_endpoint.h"
#include "test_database.h"

namespace edgeadmm::server {
namespace {

constexpr size_t kRecords = 40;  // N
constexpr size_t kTest = 5;      // K
constexpr size_t kColumns[2] = {3, 2};
constexpr size_t kStreamRows = 7;
// Firmware for party 1 (2 columns, 40 records), admm-sharing only: a
// StaticDeviceClient streams one 64-byte CoAP block of values (16 rows).
using SharingShape =
    DeviceShape<2, kRecords, AlgorithmBit(AlgorithmKind::kAdmmSharing),
                LossBit(LossKind::kLogistic), 64>;
// How party 1 runs.
enum class Mode { kWhole, kStreamed, kStreamedObserve, kStatic };

std::string File(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

// N + K records of 5 features (deterministic), labels ±1 by a planted w.
struct Data {
  std::vector<Real> rows;  // (N + K) x 5
  std::vector<int> labels;
};
Data MakeData() {
  Data d;
  uint64_t s = 12345;
  auto next = [&] {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(s >> 11) / 9007199254740992.0 - 0.5;
  };
  const double w[5] = {1.5, -2.0, 0.5, 1.0, -1.0};
  for (size_t i = 0; i < kRecords + kTest; ++i) {
    double margin = 0;
    for (size_t c = 0; c < 5; ++c) {
      d.rows.push_back(next());
      margin += w[c] * d.rows.back();
    }
    d.labels.push_back(margin + 0.2 * next() > 0 ? 1 : -1);
  }
  return d;
}

std::string Labels(const Data& d, size_t first, size_t count) {
  std::string text;
  for (size_t i = first; i < first + count; ++i) {
    text += (d.labels[i] > 0 ? "+1" : "-1");
    text += " 1:1\n";
  }
  return text;
}

std::string JobToml(const Data& d, bool rigorous) {
  return "[job]\nname = \"stream\"\nalgorithm = \"admm-sharing\"\n"
         "loss = \"logistic\"\ndimension = 5\nrounds = 6\n"
         "[admm_sharing]\nparties = 2\ncolumns = [3, 2]\nrecords = 40\n"
         "rho = 0.05\nlambda = 0.01\nlabels = \"" +
         File("stream_train.libsvm", Labels(d, 0, kRecords)) + "\"\n" +
         (rigorous ? "noise = \"rigorous\"\nsigma = 0.05\nsensitivity = 0.01\n"
                   : "noise = \"none\"\n") +
         "test_labels = \"" +
         File("stream_test.libsvm", Labels(d, kRecords, kTest)) +
         "\"\ntest_records = 5\n" +
         (rigorous ? "score_noise = \"gaussian\"\nscore_sigma = 0.05\n"
                     "score_sensitivity = 0.01\n"
                   : "score_noise = \"exact\"\n") +
         "[sampling]\ndeadline_seconds = 60\n";
}

// One party: its column block (train and test) and a client.
struct Party {
  Party(const Data& d, size_t party, size_t stream_rows, CoapEndpoint& endpoint,
        const std::string& device_id, std::vector<std::byte>& staging)
      : id(device_id), transport(endpoint, id.c_str(), LinkConfig{}) {
    const size_t first = party == 0 ? 0 : kColumns[0];
    const size_t p = kColumns[party];
    for (size_t i = 0; i < kRecords + kTest; ++i) {
      auto& rows = i < kRecords ? train : test;
      for (size_t c = 0; c < p; ++c) rows.push_back(d.rows[i * 5 + first + c]);
    }
    train_labels.assign(kRecords, 1);
    test_labels.assign(kTest, 1);
    if (stream_rows > 0) {
      transport.EnableStreaming(ByteSpan(staging.data(), staging.size()));
    }
    const size_t vector = stream_rows > 0 ? 0 : kRecords + kTest;
    trainer_ws.resize(DeviceClient::TrainerWorkspaceBytes(kRecords, p) + 16);
    scratch.resize(DeviceClient::ComputeScratchBytes(p, vector) + 16);
    memory.resize(DeviceClient::MemoryBytes(p, vector, stream_rows) + 16);
    storage_bytes.resize(MemoryStorage::kMaxKeys *
                         DeviceClient::RecordBytes(p, vector, stream_rows));
    storage = std::make_unique<MemoryStorage>(
        ByteSpan(storage_bytes.data(), storage_bytes.size()));
    config.device_id = this->id.c_str();
    config.transport = &transport;
    config.storage = storage.get();
    config.entropy = &entropy;
    config.data = *DatasetView::Create(
        Span<const Real>(train.data(), train.size()),
        Span<const Real>(train_labels.data(), kRecords), kRecords, p);
    config.test_data = *DatasetView::Create(
        Span<const Real>(test.data(), test.size()),
        Span<const Real>(test_labels.data(), kTest), kTest, p);
    config.trainer = &trainer;
    config.trainer_workspace = Aligned(trainer_ws);
    config.compute_scratch = Aligned(scratch);
    config.max_vector = vector;
    config.stream_rows = stream_rows;
    config.epsilon_budget = 1e6;
    config.allow_unaccounted_steps = true;
    config.use_observe = false;
    config.task_refresh_ms = 100;
    config.retry_min_ms = 100;
  }
  static ByteSpan Aligned(std::vector<std::byte>& v) {
    auto address = reinterpret_cast<uintptr_t>(v.data());
    const size_t pad = (16 - address % 16) % 16;
    return ByteSpan(v.data() + pad, v.size() - pad);
  }
  Status Init() {
    if (static_client == nullptr) return client.Init(config, Aligned(memory));
    DeviceClientConfig c = config;  // the arena provides the rest
    c.trainer = nullptr;
    c.trainer_workspace = ByteSpan();
    c.compute_scratch = ByteSpan();
    c.stream_rows = 0;
    return static_client->Init(c);
  }
  // The client in use (the static one's, for firmware-like runs).
  DeviceClient& dc() {
    return static_client != nullptr ? static_client->client() : client;
  }
  // x̃_m in the persisted record.
  std::vector<double> Model() {
    std::vector<std::byte> record(storage_bytes.size());
    const StatusWithSize read =
        storage->Read("client", ByteSpan(record.data(), record.size()));
    ClientRecordView view;
    if (!read.ok() ||
        !ParseClientRecord(ConstByteSpan(record.data(), read.size()), view)
             .ok()) {
      return {};
    }
    const Result<DeviceStateInfo> info = InspectDeviceState(view.state);
    if (!info.ok()) return {};
    std::vector<Real> x(info->primary_dim), secondary(info->secondary_dim);
    DeviceState state;
    state.primary = Span<Real>(x.data(), x.size());
    state.secondary = Span<Real>(secondary.data(), secondary.size());
    if (!DeserializeDeviceState(view.state, state).ok()) return {};
    return std::vector<double>(x.begin(), x.end());
  }

  std::string id;
  std::vector<Real> train, test, train_labels, test_labels;
  LoopbackTransport transport;
  TestEntropy entropy{7};
  std::vector<std::byte> trainer_ws, scratch, memory, storage_bytes;
  std::unique_ptr<MemoryStorage> storage;
  LocalTrainer trainer;
  DeviceClientConfig config;
  DeviceClient client;
  std::unique_ptr<StaticDeviceClient<SharingShape>> static_client;
};

struct Outcome {
  std::vector<std::vector<double>> models;  // per round, party 1's x̃
  double test_log_loss = 0;
  bool completed = false;
};

// Runs the job with party 1 in `mode`; party 0 always takes whole vectors.
Outcome RunJob(Mode mode) {
  const size_t stream_rows = mode == Mode::kWhole ? 0 : kStreamRows;
  const bool observe = mode == Mode::kStreamedObserve;
  const Data d = MakeData();
  testing::TempDatabase t;
  const std::vector<std::string> ids = testing::EnrollDevices(t.db(), 2);
  const int64_t job = testing::CreateJobOrDie(t.db(), JobToml(d, false));
  EXPECT_TRUE(jobs::SetJobState(t.db(), job, jobs::JobState::kRunning).ok());
  rounds::PrivacyRoundAccountant accountant;
  auto engine = rounds::RoundEngine::Open(t.db(), job, accountant);
  EXPECT_TRUE(engine.ok());
  RequestHandler handler(engine->get());
  HandlerEndpoint endpoint(handler, **engine);
  std::vector<std::byte> staging(1 << 16);
  std::vector<std::unique_ptr<Party>> parties;
  for (size_t m = 0; m < 2; ++m) {
    parties.push_back(std::make_unique<Party>(d, m, m == 1 ? stream_rows : 0,
                                              endpoint, ids[m], staging));
    parties.back()->config.use_observe = m == 1 && observe;
    if (m == 1 && mode == Mode::kStatic) {
      parties.back()->static_client =
          std::make_unique<StaticDeviceClient<SharingShape>>();
    }
    EXPECT_EQ(parties.back()->Init(), Status::Ok());
  }
  Outcome outcome;
  int64_t iteration = 0;
  for (int64_t now = 0; now < 600000; now += 50) {
    endpoint.set_now_ms(now);
    EXPECT_TRUE((*engine)->Advance(now).ok());
    if ((*engine)->iteration() != iteration) {  // x̃_m of the last round
      iteration = (*engine)->iteration();
      if (iteration > 0) outcome.models.push_back(parties[1]->Model());
    }
    auto status = jobs::LoadJobStatus(t.db(), "stream");
    if (status.ok() && status->job.state == jobs::JobState::kCompleted) {
      outcome.completed = true;
      outcome.models.push_back(parties[1]->Model());  // x̃_m(T)
      outcome.test_log_loss = status->last.scores.test_log_loss;
      break;
    }
    for (auto& p : parties) {
      EXPECT_EQ(p->dc().Poll(static_cast<uint64_t>(now)), Status::Ok());
      p->transport.Poll(0).status().IgnoreError();
    }
  }
  EXPECT_EQ(parties[1]->dc().counters().steps_refused, 0u);
  EXPECT_EQ(parties[1]->dc().counters().tasks_invalid, 0u);
  return outcome;
}

// Polling, Observe, and a StaticDeviceClient of a sharing-only shape (what
// a firmware declares).
TEST(StreamingPartyTest, AStreamedPartyComputesWhatAWholeVectorPartyDoes) {
  const Outcome whole = RunJob(Mode::kWhole);
  ASSERT_TRUE(whole.completed);
  size_t stepped = 0;  // snapshots after at least one step
  for (const auto& m : whole.models) stepped += m.empty() ? 0 : 1;
  ASSERT_GE(stepped, 6u);  // x̃_m(1..6)
  for (const Mode mode :
       {Mode::kStreamed, Mode::kStreamedObserve, Mode::kStatic}) {
    SCOPED_TRACE(static_cast<int>(mode));
    const Outcome streamed = RunJob(mode);
    ASSERT_TRUE(streamed.completed);
    ASSERT_EQ(streamed.models.size(), whole.models.size());
    double largest = 0;
    for (size_t r = 0; r < whole.models.size(); ++r) {
      ASSERT_EQ(streamed.models[r].size(), whole.models[r].size());
      for (size_t c = 0; c < whole.models[r].size(); ++c) {
        EXPECT_NEAR(streamed.models[r][c], whole.models[r][c],
                    1e-9 * (1 + std::fabs(whole.models[r][c])));
        largest = std::fmax(largest, std::fabs(whole.models[r][c]));
      }
    }
    EXPECT_GT(largest, 1e-3);  // the model moved: not a comparison of zeros
    EXPECT_NEAR(streamed.test_log_loss, whole.test_log_loss, 1e-6);
  }
}

TEST(StreamingPartyTest, AResentStreamedUploadRepeatsItsNoiseBitForBit) {
  const Data d = MakeData();
  testing::TempDatabase t;
  const std::vector<std::string> ids = testing::EnrollDevices(t.db(), 2);
  const int64_t job = testing::CreateJobOrDie(t.db(), JobToml(d, true));
  ASSERT_TRUE(jobs::SetJobState(t.db(), job, jobs::JobState::kRunning).ok());
  rounds::PrivacyRoundAccountant accountant;
  auto engine = rounds::RoundEngine::Open(t.db(), job, accountant);
  ASSERT_TRUE(engine.ok());
  ASSERT_TRUE((*engine)->Advance(0).ok());
  RequestHandler handler(engine->get());
  HandlerEndpoint endpoint(handler, **engine);
  std::vector<std::byte> staging(1 << 16);
  Party party(d, 1, kStreamRows, endpoint, ids[1], staging);
  // Round 1: the step is persisted and the device stops before sending (a
  // power cut), keeping its record: x̃_m and the round's noise key.
  party.config.halt_after_persist = true;
  ASSERT_EQ(party.Init(), Status::Ok());
  auto run = [&](auto done) {
    for (uint64_t now = 0; now < 60000 && !done(); now += 50) {
      ASSERT_EQ(party.client.Poll(now), Status::Ok());
      party.transport.Poll(0).status().IgnoreError();
    }
  };
  run([&] { return party.client.state() == ClientState::kHalted; });
  ASSERT_EQ(party.client.state(), ClientState::kHalted);
  ASSERT_TRUE(party.client.upload_pending());
  EXPECT_TRUE(party.client.pending_upload().empty());  // a recipe, not bytes
  std::vector<std::byte> record(party.storage_bytes.size());
  const StatusWithSize saved =
      party.storage->Read("client", ByteSpan(record.data(), record.size()));
  ASSERT_TRUE(saved.ok());
  // Reboot: the upload is produced from the record and sent (accepted).
  party.config.halt_after_persist = false;
  ASSERT_EQ(party.Init(), Status::Ok());
  run([&] { return party.client.counters().uploads_accepted == 1; });
  ASSERT_EQ(party.client.counters().uploads_accepted, 1u);
  EXPECT_EQ(party.client.counters().steps_computed, 0u);  // not recomputed
  // The receipt is lost: the device reboots with the record of before it.
  ASSERT_EQ(party.storage->Write("client",
                                 ConstByteSpan(record.data(), saved.size())),
            Status::Ok());
  ASSERT_EQ(party.Init(), Status::Ok());
  run([&] { return party.client.counters().uploads_duplicate == 1; });
  EXPECT_EQ(party.client.counters().uploads_duplicate, 1u);
  const auto& sent = endpoint.updates(ids[1]);
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(sent[0], sent[1]);  // the same release, bit for bit

  // The share carries the rigorous noise: s − D_m x̃_m is N(0, σ²I_N),
  // σ = 0.05 (its norm about σ√N = 0.32).
  std::vector<Real> share(kRecords);
  wire::DecodedUpdate update{};
  ASSERT_EQ(
      wire::DecodeUpdate(
          ConstByteSpan(reinterpret_cast<const std::byte*>(sent[0].data()),
                        sent[0].size()),
          Span<Real>(share.data(), share.size()), update),
      Status::Ok());
  const std::vector<double> x = party.Model();
  ASSERT_EQ(x.size(), kColumns[1]);
  double noise = 0;
  for (size_t i = 0; i < kRecords; ++i) {
    double dot = 0;
    for (size_t c = 0; c < x.size(); ++c) dot += party.train[i * 2 + c] * x[c];
    noise += (share[i] - dot) * (share[i] - dot);
  }
  noise = std::sqrt(noise);
  EXPECT_GT(noise, 0.05 * std::sqrt(double(kRecords)) * 0.5);
  EXPECT_LT(noise, 0.05 * std::sqrt(double(kRecords)) * 1.6);
}

}  // namespace
}  // namespace edgeadmm::server
