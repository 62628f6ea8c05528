// DeviceClient (the class the Linux device program runs) in a
// secure-aggregation job served by the daemon's CoapServer in process, over
// real DTLS-PSK on loopback: 5 devices with their own records fetch the
// task, run the step with their DDG noise charged, encode once, persist and
// send the words through the SecAgg+ phases. The round commits with 5
// participants, and the released model is ApplySum of the decoded sum of
// the words the devices stored (the words the phases masked). A device
// rebooted after phase 2 resumes with the same stored words and the round
// still commits; a device not configured for secure rounds refuses the task
// (UNIMPLEMENTED). A StaticDeviceClient whose shape opts into secure rounds
// (WithSecureRounds) takes part like the others, and resumes after a reboot.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "edgeadmm/algorithms/registry.h"
#include "edgeadmm/dataset_view.h"
#include "edgeadmm/device_client.h"
#include "edgeadmm/fake/memory_storage.h"
#include "edgeadmm/fake/test_entropy.h"
#include "edgeadmm/jobs/job_config.h"
#include "edgeadmm/jobs/job_store.h"
#include "edgeadmm/local_trainer.h"
#include "edgeadmm/posix/coap_client_context.h"
#include "edgeadmm/posix/coap_dtls_transport.h"
#include "edgeadmm/posix/monotonic_clock.h"
#include "edgeadmm/registry/device_registry.h"
#include "edgeadmm/rounds/sampling_rng.h"
#include "edgeadmm/secagg/ddg_encoding.h"
#include "edgeadmm/secagg_input_record.h"
#include "edgeadmm/secure_aggregation/ddg_decoding.h"
#include "edgeadmm/server/coap_server.h"
#include "edgeadmm/static_device_client.h"
#include "edgeadmm/wire/coap_code.h"
#include "secure_job_fixture.h"
#include "test_database.h"

namespace edgeadmm {
namespace {

using secure_aggregation::SecAggPhase;

constexpr uint32_t kDevices = 5;
constexpr size_t kDim = 3;
constexpr size_t kSamples = 4;
constexpr size_t kMaxK = 8;
constexpr int64_t kPhaseMs = 5000;  // the job's phases (SetUp)
// A firmware-style client: prox-ADMM, logistic, secure rounds (k).
using SecureShape = WithSecureRounds<
    DeviceShape<kDim, kSamples, AlgorithmBit(AlgorithmKind::kProxAdmm),
                LossBit(LossKind::kLogistic)>,
    kMaxK>;
using FixedClient = StaticDeviceClient<SecureShape>;

struct Device {
  Device(posix::CoapClientContext& ctx, uint16_t port, std::string name,
         std::vector<uint8_t> psk, uint32_t index)
      : id(std::move(name)),
        key(std::move(psk)),
        flash(64 * 1024),
        storage(ByteSpan(flash.data(), flash.size())),
        trainer_ws(DeviceClient::TrainerWorkspaceBytes(kSamples, kDim)),
        scratch(DeviceClient::ComputeScratchBytes(kDim)),
        memory(DeviceClient::MemoryBytes(kDim) +
               DeviceClient::SecAggMemoryBytes(kDim, kMaxK)) {
    for (size_t j = 0; j < kSamples; ++j) {
      for (size_t c = 0; c < kDim; ++c) {
        features.push_back(Real(0.1 * double((index + 2 * j + c) % 7) - 0.3));
      }
      labels.push_back((index + j) % 2 == 0 ? Real(1) : Real(-1));
    }
    data = *DatasetView::Create(
        Span<const Real>(features.data(), features.size()),
        Span<const Real>(labels.data(), labels.size()), kSamples, kDim);
    dtls.host = "127.0.0.1";
    dtls.port = port;
    dtls.identity = id.c_str();
    dtls.key = ConstByteSpan(reinterpret_cast<const std::byte*>(key.data()),
                             key.size());
    dtls.ack_timeout_ms = 1000;
    Boot(ctx, 100 + index, kMaxK);
  }

  // A (re)boot: a new transport, entropy stream, client and RAM; the
  // storage survives.
  void Boot(posix::CoapClientContext& ctx, uint64_t seed, size_t k) {
    client = nullptr;
    owned.reset();
    fixed.reset();
    transport = std::make_unique<posix::CoapDtlsTransport>(ctx, dtls);
    entropy = std::make_unique<TestEntropy>(seed);
    std::fill(memory.begin(), memory.end(), std::byte{0});
    DeviceClientConfig c;
    c.device_id = id.c_str();
    c.job = job_name;
    c.transport = transport.get();
    c.storage = &storage;
    c.entropy = entropy.get();
    c.data = data;
    c.trainer = &trainer;
    c.trainer_workspace = ByteSpan(trainer_ws.data(), trainer_ws.size());
    c.compute_scratch = ByteSpan(scratch.data(), scratch.size());
    c.epsilon_budget = 1e6;
    c.use_observe = false;
    c.task_refresh_ms = 100;
    c.retry_min_ms = 100;
    c.retry_max_ms = 400;
    c.secagg_max_neighbours = k;
    if (fixed_shape) {  // the shape's arena, trainer and limits
      c.trainer = nullptr;
      c.trainer_workspace = ByteSpan();
      c.compute_scratch = ByteSpan();
      fixed = std::make_unique<FixedClient>();
      ASSERT_TRUE(fixed->Init(c).ok());
      client = &fixed->client();
      return;
    }
    owned = std::make_unique<DeviceClient>();
    ASSERT_TRUE(owned
                    ->Init(c, ByteSpan(memory.data(), memory.size()),
                           AllClientAlgorithmsWithSecureRounds())
                    .ok());
    client = owned.get();
  }

  // The phase of the stored SecAgg+ blob (0: none).
  int StoredPhase() {
    std::vector<std::byte> blob(8192);
    const StatusWithSize n =
        storage.Read("client.sa", ByteSpan(blob.data(), blob.size()));
    if (!n.ok() || n.size() < 8) return 0;
    return int(blob[6]);
  }

  // The words stored for (job, round).
  std::vector<uint32_t> StoredWords(uint64_t job, uint64_t round, size_t m) {
    std::vector<std::byte> buffer(SecAggInputRecordBytes(m));
    std::vector<uint32_t> words(m);
    EXPECT_TRUE(LoadSecAggInput(storage, "client.in", {job, round},
                                ByteSpan(buffer.data(), buffer.size()),
                                Span<uint32_t>(words.data(), m))
                    .ok());
    return words;
  }

  std::string id;
  const char* job_name = nullptr;  // DeviceClientConfig::job (null: none)
  std::vector<uint8_t> key;
  std::vector<std::byte> flash;
  MemoryStorage storage;
  std::vector<Real> features;
  std::vector<Real> labels;
  DatasetView data;
  LocalTrainer trainer;
  std::vector<std::byte> trainer_ws;
  std::vector<std::byte> scratch;
  std::vector<std::byte> memory;
  posix::CoapDtlsConfig dtls;
  std::unique_ptr<posix::CoapDtlsTransport> transport;
  std::unique_ptr<TestEntropy> entropy;
  bool fixed_shape = false;  // a StaticDeviceClient<SecureShape>
  std::unique_ptr<DeviceClient> owned;
  std::unique_ptr<FixedClient> fixed;
  DeviceClient* client = nullptr;  // owned's or fixed's
};

class SecAggDeviceClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(ctx_.status().ok());
    // m = 5, m_min = 4, deadline 20 s, dropouts 1, phases of 5 s.
    const std::string toml = testing::SecureProxAdmmJobToml(5, 4, 20, 1, 5);
    std::vector<std::vector<uint8_t>> psks;
    ASSERT_NO_FATAL_FAILURE(testing::StartSecureJobOnLoopback(
        db_.db(), kDevices, toml, names_, psks, server_, upload_spread_us_));
    clock_.Attach(*server_);
    ASSERT_NO_FATAL_FAILURE(testing::TurnUntilPhasesStart(*server_, clock_));
    for (uint32_t i = 0; i < kDevices; ++i) {
      devices_.push_back(std::make_unique<Device>(ctx_, server_->port(),
                                                  names_[i], psks[i], i));
    }
  }

  // One turn of the server (its clock stepped: no device here is gone, so
  // a phase closes only once every device it awaits answered) and of
  // every device.
  void Turn() {
    ASSERT_NO_FATAL_FAILURE(TurnServer());
    (void)ctx_.Poll(0);
    for (auto& d : devices_) (void)d->client->Poll(posix::MonotonicMs());
  }

  // Turns until the open round is released or closed without a release;
  // `reboot` (if < kDevices) is rebooted once its stored phase reaches 2.
  // After every turn each client's secure_round_phase() is the phase its
  // stored blob holds; device 0 (never rebooted) passes through all four.
  void RunRound(uint32_t reboot) {
    rounds::RoundEngine& engine = *server_->engine();
    const int64_t round_id = engine.open_secure_round()->round_id;
    bool rebooted = false;
    std::set<int> phases_of_device0;
    while (engine.released_round_id() != round_id &&
           engine.open_secure_round() != nullptr &&
           engine.open_secure_round()->round_id == round_id) {
      Turn();
      for (auto& d : devices_) {
        ASSERT_EQ(int(d->client->secure_round_phase()), d->StoredPhase())
            << d->id;
      }
      phases_of_device0.insert(devices_[0]->client->secure_round_phase());
      if (reboot < kDevices && !rebooted &&
          devices_[reboot]->StoredPhase() == 2) {
        Device& d = *devices_[reboot];
        before_reboot_ = d.StoredWords(job_id(), uint64_t(round_id), m());
        d.Boot(ctx_, 999, kMaxK);  // another entropy stream
        rebooted = true;
      }
    }
    if (reboot < kDevices) {
      EXPECT_TRUE(rebooted);
    }
    if (engine.released_round_id() == round_id) {
      for (int phase = 1; phase <= 4; ++phase) {
        EXPECT_EQ(phases_of_device0.count(phase), 1u) << "phase " << phase;
      }
    }
  }

  void TurnServer() {
    ASSERT_TRUE(server_->RunOnce(1).ok());
    clock_.AfterTurn(*server_, kPhaseMs,
                     [](const std::string&) { return false; });
  }

  uint64_t job_id() const { return uint64_t(server_->engine()->job().id); }
  size_t m() const { return DdgPaddedDimension(kDim); }

  // ApplySum of the decoded sum of the devices' stored words.
  algorithms::ServerModel Expected(const algorithms::ServerModel& before,
                                   const rounds::Task& task) {
    std::vector<uint32_t> sum(m(), 0);
    const uint32_t mask = (uint32_t{1} << task.ddg.bits) - 1;
    for (auto& d : devices_) {
      const std::vector<uint32_t> w =
          d->StoredWords(job_id(), uint64_t(task.round_id), m());
      for (size_t j = 0; j < m(); ++j) sum[j] = (sum[j] + w[j]) & mask;
    }
    auto decoded = secure_aggregation::DecodeDdgSum(
        Span<const uint32_t>(sum.data(), sum.size()), task.ddg,
        ConstByteSpan(task.rotation_seed.data(), 32), uint64_t(task.round_id));
    EXPECT_TRUE(decoded.ok());
    algorithms::ServerModel model = before;
    auto noise = rounds::SamplingRng::Create(1);
    const jobs::JobRecord& job = server_->engine()->job();
    EXPECT_TRUE(
        algorithms::Get(job.config.algorithm)
            .sum_rounds()
            ->ApplySum(job.config, job.n, *decoded, kDevices, **noise, model)
            .ok());
    return model;
  }

  testing::TempDatabase db_;
  posix::CoapClientContext ctx_;
  std::unique_ptr<server::CoapServer> server_;
  std::vector<std::string> names_;
  std::vector<std::unique_ptr<Device>> devices_;
  std::vector<uint32_t> before_reboot_;
  testing::HeldServerClock clock_;
  // The server's spread per expected cohort member (its default: 5 devices
  // wait up to 2.5 ms before phase 0).
  uint32_t upload_spread_us_ = server::ServerOptions{}.upload_spread_us;
};

// The tasks state a spread of 1.25 s: 250 ms per expected cohort member
// times m = 5, a quarter of the 5-s phase (docs/protocol.md, "Upload
// spread").
class SecAggSpreadTest : public SecAggDeviceClientTest {
 protected:
  static constexpr uint32_t kSpreadMs = 1250;
  void SetUp() override {
    upload_spread_us_ = kSpreadMs * 1000 / kDevices;
    SecAggDeviceClientTest::SetUp();
  }
};

double Distance(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (size_t j = 0; j < a.size(); ++j) s += (a[j] - b[j]) * (a[j] - b[j]);
  return std::sqrt(s);
}

TEST_F(SecAggDeviceClientTest, FiveDeviceClientsCommitASecureRound) {
  rounds::RoundEngine& engine = *server_->engine();
  const algorithms::ServerModel before = engine.model();
  const rounds::Task task = engine.TaskFor(names_[0]);
  ASSERT_TRUE(task.secure);
  std::printf("SecAggMemoryBytes: d=3 k=8 %zu B, d=123 k=32 %zu B\n",
              DeviceClient::SecAggMemoryBytes(kDim, kMaxK),
              DeviceClient::SecAggMemoryBytes(123, 32));
  RunRound(kDevices);
  ASSERT_EQ(engine.released_round_id(), task.round_id);
  EXPECT_EQ(engine.released_participants(), int64_t(kDevices));
  const algorithms::ServerModel expected = Expected(before, task);
  EXPECT_GT(Distance(engine.model().z, before.z), 1e-3);
  EXPECT_LE(Distance(engine.model().z, expected.z), 1e-9);
  EXPECT_LE(Distance(engine.model().state, expected.state), 1e-9);
  for (auto& d : devices_) {
    const DeviceClientCounters& c = d->client->counters();
    EXPECT_EQ(c.steps_computed, 1u) << d->id;
    EXPECT_EQ(c.uploads_accepted, 1u) << d->id;
    EXPECT_TRUE(d->client->last_error().ok()) << d->client->last_error().str();
    EXPECT_FALSE(d->client->upload_pending());
  }
}

TEST_F(SecAggDeviceClientTest, RebootAfterPhaseTwoResumesWithTheSameWords) {
  rounds::RoundEngine& engine = *server_->engine();
  const algorithms::ServerModel before = engine.model();
  const rounds::Task task = engine.TaskFor(names_[0]);
  RunRound(2);
  ASSERT_EQ(engine.released_round_id(), task.round_id);
  EXPECT_EQ(engine.released_participants(), int64_t(kDevices));
  Device& d = *devices_[2];
  EXPECT_EQ(d.StoredWords(job_id(), uint64_t(task.round_id), m()),
            before_reboot_);
  EXPECT_EQ(d.client->counters().steps_computed, 0u);  // not recomputed
  EXPECT_EQ(d.client->counters().uploads_accepted, 1u);
  const algorithms::ServerModel expected = Expected(before, task);
  EXPECT_LE(Distance(engine.model().z, expected.z), 1e-9);
}

// Devices 0 and 1 run StaticDeviceClient<WithSecureRounds<...>> (the
// firmware's client, its arena sized by the shape): the round commits with
// all five and the model is the decoded sum; device 1, rebooted after phase
// 2, resumes from its storage with the same words.
TEST_F(SecAggDeviceClientTest, StaticDeviceClientsJoinAndResume) {
  for (uint32_t i = 0; i < 2; ++i) {
    devices_[i]->fixed_shape = true;
    ASSERT_NO_FATAL_FAILURE(devices_[i]->Boot(ctx_, 200 + i, kMaxK));
  }
  rounds::RoundEngine& engine = *server_->engine();
  const algorithms::ServerModel before = engine.model();
  const rounds::Task task = engine.TaskFor(names_[0]);
  RunRound(1);
  ASSERT_EQ(engine.released_round_id(), task.round_id);
  EXPECT_EQ(engine.released_participants(), int64_t(kDevices));
  Device& resumed = *devices_[1];
  ASSERT_TRUE(resumed.fixed != nullptr);
  EXPECT_EQ(resumed.StoredWords(job_id(), uint64_t(task.round_id), m()),
            before_reboot_);
  EXPECT_EQ(resumed.client->counters().steps_computed, 0u);
  EXPECT_EQ(resumed.client->counters().uploads_accepted, 1u);
  EXPECT_EQ(devices_[0]->client->counters().steps_computed, 1u);
  EXPECT_EQ(devices_[0]->client->counters().uploads_accepted, 1u);
  EXPECT_LE(Distance(engine.model().z, Expected(before, task).z), 1e-9);
}

// The next round: each client's session was made afresh when the first
// ended, and the new round's words are encoded anew.
TEST_F(SecAggDeviceClientTest, TwoRoundsInARow) {
  rounds::RoundEngine& engine = *server_->engine();
  const int64_t first = engine.open_secure_round()->round_id;
  RunRound(kDevices);
  ASSERT_EQ(engine.released_round_id(), first);
  while (engine.open_secure_round() == nullptr ||
         engine.open_secure_round()->round_id == first ||
         server_->secagg().phase() == SecAggPhase::kNotStarted) {
    Turn();
  }
  const algorithms::ServerModel before = engine.model();
  const rounds::Task task = engine.TaskFor(names_[0]);
  RunRound(kDevices);
  ASSERT_EQ(engine.released_round_id(), task.round_id);
  EXPECT_EQ(engine.released_participants(), int64_t(kDevices));
  EXPECT_LE(Distance(engine.model().z, Expected(before, task).z), 1e-9);
  for (auto& d : devices_) {
    EXPECT_EQ(d->client->counters().steps_computed, 2u) << d->id;
    EXPECT_EQ(d->client->counters().uploads_accepted, 2u) << d->id;
  }
}

// Each device computes its step at once, then waits its share of the
// task's spread before phase 0 (kBackoff), so the cohort joins apart, and
// the round still commits with every device.
TEST_F(SecAggSpreadTest, DevicesWaitTheirShareOfTheSpreadBeforePhaseZero) {
  rounds::RoundEngine& engine = *server_->engine();
  const int64_t round_id = engine.open_secure_round()->round_id;
  ASSERT_EQ(engine.TaskFor(names_[0]).kind, rounds::Task::Kind::kTrain);
  std::vector<uint64_t> computed(kDevices, 0), joined(kDevices, 0);
  while (engine.released_round_id() != round_id) {
    ASSERT_NE(engine.open_secure_round(), nullptr) << "the round ended";
    Turn();
    const uint64_t now = posix::MonotonicMs();
    for (uint32_t i = 0; i < kDevices; ++i) {
      const DeviceClient& c = *devices_[i]->client;
      if (computed[i] == 0 && c.counters().steps_computed == 1) {
        computed[i] = now;
        EXPECT_EQ(c.state(), ClientState::kBackoff) << names_[i];
      }
      if (joined[i] == 0 && c.state() == ClientState::kSecureRound) {
        joined[i] = now;
      }
    }
  }
  EXPECT_EQ(engine.released_participants(), int64_t(kDevices));
  const auto [first, last] = std::minmax_element(joined.begin(), joined.end());
  // The draws of the five ids (fixed: DeviceClient's per-device sequence)
  // lie more than a quarter of the spread apart; without the wait all five
  // join in the turn their step is computed.
  EXPECT_GE(*last - *first, kSpreadMs / 4);
  uint64_t longest = 0;
  for (uint32_t i = 0; i < kDevices; ++i) {
    ASSERT_GT(joined[i], 0u) << names_[i];
    EXPECT_GE(joined[i], computed[i]) << names_[i];
    longest = std::max(longest, joined[i] - computed[i]);
  }
  EXPECT_GE(longest, kSpreadMs / 4);
}

// A second secure job on the same five devices: both jobs' rounds run at
// once (server.max_secure_rounds 2), every device is in both cohorts, so
// phase 0 without a round is refused (4.00). The clients (their tasks from
// job "secure", DeviceClientConfig::job) ask
// v1/secagg/round?round=<their task's round id>, join that round, and it
// commits ApplySum of their decoded sum.
TEST_F(SecAggDeviceClientTest, TwoSecureJobsAtOnceClientsNameTheirJob) {
  for (uint32_t i = 0; i < kDevices; ++i) {
    devices_[i]->job_name = "secure";
    devices_[i]->Boot(ctx_, 300 + i, kMaxK);
  }
  testing::SecureJob other;
  other.name = "other";
  other.m = 5;
  other.m_min = 4;
  other.dropouts = 1;
  other.phase_seconds = 5;
  ASSERT_NO_FATAL_FAILURE(
      testing::StartRunningJob(db_.db(), testing::SecureJobToml(other)));
  server::SecAggRounds& rounds = server_->secagg_rounds();
  // The server picks the job up within a second and starts its round: the
  // clock steps 10 ms a turn meanwhile (slot 0's first phase, open, ends
  // 5 s after it opened).
  while (rounds.slot(1).phase() == SecAggPhase::kNotStarted) {
    ASSERT_TRUE(server_->RunOnce(1).ok());
    clock_.Advance(10);
  }
  // Both rounds in their phases at once, the devices in both cohorts.
  EXPECT_EQ(rounds.slot(0).phase(), SecAggPhase::kAdvertise);
  EXPECT_EQ(rounds.slot(1).phase(), SecAggPhase::kAdvertise);
  EXPECT_EQ(rounds.Round(names_[0], 0).code, wire::kCoapBadRequest);
  rounds::RoundEngine& engine = *server_->engine();
  ASSERT_EQ(engine.job().config.name, "secure");
  const algorithms::ServerModel before = engine.model();
  const rounds::Task task = engine.TaskFor(names_[0]);
  RunRound(kDevices);
  ASSERT_EQ(engine.released_round_id(), task.round_id);
  EXPECT_EQ(engine.released_participants(), int64_t(kDevices));
  const algorithms::ServerModel expected = Expected(before, task);
  EXPECT_LE(Distance(engine.model().z, expected.z), 1e-9);
  for (auto& d : devices_) {
    EXPECT_EQ(d->client->counters().uploads_accepted, 1u) << d->id;
  }
}

TEST_F(SecAggDeviceClientTest, ClientNotConfiguredForSecureRoundsRefuses) {
  Device& d = *devices_[0];
  d.Boot(ctx_, 7, /*k=*/0);
  while (d.client->counters().steps_refused == 0) Turn();
  EXPECT_EQ(d.client->last_error(), Status::Unimplemented());
  EXPECT_EQ(d.client->counters().steps_computed, 0u);
  EXPECT_EQ(d.client->counters().upload_attempts, 0u);
  uint64_t job = 0;
  uint64_t round = 0;
  EXPECT_FALSE(d.client->last_step(job, round));
  EXPECT_EQ(d.StoredPhase(), 0);
}

}  // namespace
}  // namespace edgeadmm
