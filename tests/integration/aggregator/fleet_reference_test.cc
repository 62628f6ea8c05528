// Issue 5 must-show: 100 devices (the fleet's DeviceClients, each over its
// own DTLS-PSK session) train paper 002 Alg. 3 on an a9a subset against the
// real daemon on loopback with σ = 0; the released model equals an
// in-process reference run of the SDK's local step with the same cohorts
// (reproduced from `sampling.seed`) to 1e-5; and again through a gateway of
// four shards (`[server] shards`), run by one thread and by two (`[server]
// threads`, issue 36), each device on one session for the whole job.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "edgeadmm/dataio/libsvm_reader.h"
#include "edgeadmm/fake/test_entropy.h"
#include "edgeadmm/fleet/data_split.h"
#include "edgeadmm/jobs/job_config.h"
#include "edgeadmm/jobs/job_report.h"
#include "edgeadmm/jobs/job_store.h"
#include "edgeadmm/local_steps.h"
#include "edgeadmm/rounds/cohort_sampler.h"
#include "edgeadmm/rounds/round_accountant.h"
#include "edgeadmm/rounds/round_engine.h"
#include "edgeadmm/rounds/sampling_rng.h"
#include "fleet_harness.h"
#include "test_database.h"

namespace edgeadmm {
namespace {

constexpr int kDevices = 100;
constexpr size_t kRecords = 1000;  // the first 1000 lines of a9a
constexpr size_t kDim = 123;

const char kJobToml[] =
    "[job]\nname = \"e2e\"\nalgorithm = \"prox-admm\"\nloss = \"logistic\"\n"
    "dimension = 123\nrounds = 6\n"
    "[regularizer]\nkind = \"elastic-net\"\nl1 = 0.001\nl2 = 0.01\n"
    "[step]\nlambda = 0.5\ngamma = 2.0\n"
    "[privacy]\npolicy = \"participation\"\nclip = 0.5\nsigma = 0.0\n"
    "delta = 1e-5\ncentral_budget = inf\naudit = true\ndevice_budget = inf\n"
    "[sampling]\nscheme = \"fixed\"\nm = 20\nm_min = 20\n"
    "deadline_seconds = 120\nseed = 20261122\n";

using testing::RoundToFloat;

// Paper 002 Alg. 3 without the network: the SDK's LocalTrainer on each
// sampled device (state persisted between its steps as the client does),
// float32 rounding where the wire has it, the server's running mean over all
// n devices (pitfall P3) and the elastic-net prox (soft-threshold, then
// shrink).
std::vector<double> ReferenceRun(const jobs::JobConfig& c,
                                 const DenseDataset& data,
                                 const std::vector<fleet::RecordRange>& shards,
                                 size_t n) {
  auto rng = rounds::SamplingRng::Create(c.sampling_seed);
  EXPECT_TRUE(rng.ok());
  size_t max_samples = 0;
  for (const fleet::RecordRange& r : shards) {
    max_samples = std::max(max_samples, r.count);
  }
  std::vector<std::byte> workspace(LocalStepWorkspaceBytes(
      AlgorithmKind::kProxAdmm, LossKind::kLogistic, max_samples, kDim));
  std::vector<std::vector<std::byte>> states(n);
  LocalTrainer trainer;
  TestEntropy entropy(1);
  std::vector<double> server_state(kDim, 0.0), z(kDim, 0.0);
  for (int64_t round = 1; round <= c.rounds; ++round) {
    auto cohort = rounds::SampleCohort(c, n, **rng);
    EXPECT_TRUE(cohort.ok());
    if (!cohort.ok()) return {};
    std::vector<Real> z_wire(kDim), upload(kDim);
    for (size_t j = 0; j < kDim; ++j) z_wire[j] = RoundToFloat(z[j]);
    std::vector<double> sum(kDim, 0.0);
    for (size_t index : *cohort) {
      testing::BeginReferenceStep(trainer, workspace, AlgorithmKind::kProxAdmm,
                                  data, shards[index], states[index], entropy);
      ProxAdmmParams params;
      params.lambda = c.lambda;
      params.step = c.gamma;
      params.clip = c.clip;
      params.sigma = 0.0;
      params.noise_in_state = false;
      EXPECT_TRUE(RunProxAdmm(trainer, params, static_cast<uint64_t>(round),
                              Span<const Real>(z_wire.data(), kDim),
                              Span<Real>(upload.data(), kDim))
                      .ok());
      testing::EndReferenceStep(trainer, states[index]);
      for (size_t j = 0; j < kDim; ++j) sum[j] += RoundToFloat(upload[j]);
    }
    for (size_t j = 0; j < kDim; ++j) {
      server_state[j] += sum[j] / static_cast<double>(n);
      const double v = server_state[j];
      const double shrunk =
          std::max(std::abs(v) - c.gamma * c.regularizer.l1, 0.0);
      z[j] = std::copysign(shrunk, v) / (1 + c.gamma * c.regularizer.l2);
    }
  }
  return z;
}

// Runs the job with the daemon config's `daemon_toml` and the fleet's
// `adjust`, and checks the released model against ReferenceRun.
// The run goes to `*out` unless it is null.
void ExpectTheReferenceModel(
    testing::TempDatabase& t, const std::string& daemon_toml,
    const std::function<void(fleet::DaemonFleetConfig&)>& adjust,
    testing::FleetRunResult* out = nullptr) {
  const testing::FleetSetup setup =
      testing::PrepareFleet(t, kDevices, kRecords);
  auto data = ReadLibsvmFile(setup.subset, kDim);
  ASSERT_TRUE(data.ok()) << data.error().ToString()
                         << " (is EDGEADMM_DATA set?)";
  ASSERT_EQ(data->samples, kRecords);
  auto config = jobs::ParseJobConfig(kJobToml);
  ASSERT_TRUE(config.ok()) << config.error().ToString();
  const testing::FleetRunResult run =
      testing::RunJobOverDtls(t, setup, kJobToml,
                              /*allow_unaccounted_steps=*/true, 240,  // σ = 0
                              adjust, daemon_toml);
  if (out != nullptr) *out = run;
  ASSERT_TRUE(run.ok);
  const int64_t job = run.job;
  EXPECT_EQ(run.report.devices, static_cast<size_t>(kDevices));
  EXPECT_EQ(run.report.done, static_cast<size_t>(kDevices));
  EXPECT_EQ(run.report.uploads_accepted,
            static_cast<uint64_t>(config->rounds * config->m));
  EXPECT_EQ(run.report.steps_refused, 0u);
  EXPECT_EQ(run.daemon_exit, 0);

  auto released =
      jobs::LoadReleasedModel(t.db(), "e2e", jobs::ModelChoice::Last());
  ASSERT_TRUE(released.ok());
  EXPECT_EQ(released->iteration, config->rounds);
  ASSERT_EQ(released->z.size(), kDim);

  // The reference: the same shards in the job's device order (ids sorted,
  // like the fleet's PSK files) and the cohorts drawn from the same seed.
  rounds::PrivacyRoundAccountant accountant;
  auto engine = rounds::RoundEngine::Open(t.db(), job, accountant);
  ASSERT_TRUE(engine.ok());
  const std::vector<std::string>& devices = (*engine)->devices();
  ASSERT_EQ(devices.size(), static_cast<size_t>(kDevices));
  EXPECT_TRUE(std::is_sorted(devices.begin(), devices.end()));
  auto shards = fleet::SplitRecords(data->samples, devices.size());
  ASSERT_TRUE(shards.ok());
  const std::vector<double> reference =
      ReferenceRun(*config, *data, *shards, devices.size());
  ASSERT_EQ(reference.size(), kDim);

  double max_diff = 0, norm = 0;
  for (size_t j = 0; j < kDim; ++j) {
    max_diff = std::max(max_diff, std::abs(released->z[j] - reference[j]));
    norm += reference[j] * reference[j];
  }
  std::printf("released vs reference: max |dz| = %.3g, ||z|| = %.4f\n",
              max_diff, std::sqrt(norm));
  EXPECT_GT(std::sqrt(norm), 0.05);  // the model moved: the check has teeth
  EXPECT_LE(max_diff, 1e-5);
}

TEST(FleetReferenceTest, HundredDevicesOverDtlsMatchTheInProcessReference) {
  testing::TempDatabase t;
  ExpectTheReferenceModel(t, "", {});
}

// The per-shard session counts of the daemon's metrics file.
std::map<int, uint64_t> ShardSessions(const std::string& metrics_path) {
  std::map<int, uint64_t> sessions;
  std::ifstream in(metrics_path);
  std::string line;
  const std::string prefix = "edgeadmm_shard_sessions_total{shard=\"";
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) != 0) continue;
    const size_t quote = line.find('"', prefix.size());
    const size_t space = line.rfind(' ');
    if (quote == std::string::npos || space == std::string::npos) continue;
    sessions[std::stoi(line.substr(prefix.size(), quote - prefix.size()))] =
        std::stoull(line.substr(space + 1));
  }
  return sessions;
}

// The same job through a gateway of four shards (libcoap contexts sharing
// the port by SO_REUSEPORT) run by `threads` threads, the devices from 16
// source addresses: the same model, and the sessions spread over every
// shard. Returns the sessions the gateway started.
uint64_t ExpectFourShardsServeTheSameJob(testing::TempDatabase& t,
                                         int threads,
                                         testing::FleetRunResult* run) {
  const std::string metrics = t.dir() + "/gateway.prom";
  ExpectTheReferenceModel(
      t,
      "shards = 4\nthreads = " + std::to_string(threads) +
          "\n[metrics]\nfile = \"" + metrics + "\"\n",
      [](fleet::DaemonFleetConfig& fc) {
        fc.local_address = "127.0.5.1";
        fc.local_addresses = 16;
      },
      run);
  const std::map<int, uint64_t> sessions = ShardSessions(metrics);
  EXPECT_EQ(sessions.size(), 4u) << "metrics file " << metrics;
  uint64_t total = 0;
  for (const auto& [shard, count] : sessions) {
    // 100 devices hashed over 4 sockets: an empty shard means the port is
    // not shared (all datagrams on one socket), with probability ~1e-12 by
    // chance.
    EXPECT_GT(count, 0u) << "shard " << shard;
    total += count;
  }
  EXPECT_GE(total, static_cast<uint64_t>(kDevices));
  return total;
}

TEST(FleetReferenceTest, FourShardsServeTheSameJob) {
  testing::TempDatabase t;
  ExpectFourShardsServeTheSameJob(t, 1, nullptr);
}

// Issue 36 must-show: sessions sharded across threads (shards 0 and 2 on
// one thread, 1 and 3 on the other) keep each device's datagrams in order
// and on one session: the same model as the in-process reference, every
// upload accepted once, and each device did one handshake for the whole
// job (a session that lost its datagrams' order, or a datagram handled
// beside its session's, fails DTLS and makes the device reconnect).
TEST(FleetReferenceTest, FourShardsOnTwoThreadsKeepEachDeviceOnOneSession) {
  testing::TempDatabase t;
  testing::FleetRunResult run;
  const uint64_t sessions = ExpectFourShardsServeTheSameJob(t, 2, &run);
  EXPECT_EQ(run.report.handshakes, static_cast<uint64_t>(kDevices));
  EXPECT_EQ(sessions, static_cast<uint64_t>(kDevices));
  EXPECT_EQ(run.report.transport_errors, 0u);
  EXPECT_EQ(run.report.uploads_duplicate, 0u);
  EXPECT_EQ(run.report.uploads_rejected, 0u);
}

}  // namespace
}  // namespace edgeadmm
