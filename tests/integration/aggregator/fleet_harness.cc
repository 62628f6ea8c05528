#include "fleet_harness.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <thread>
#include <vector>

#include "daemon_process.h"
#include "edgeadmm/jobs/job_store.h"
#include "edgeadmm/prox_solver.h"
#include "edgeadmm/registry/device_registry.h"

namespace edgeadmm::testing {
namespace {

std::string Hex(const std::vector<uint8_t>& bytes) {
  std::string out;
  char digits[3];
  for (uint8_t b : bytes) {
    std::snprintf(digits, sizeof(digits), "%02x", b);
    out += digits;
  }
  return out;
}

}  // namespace

std::string DataDir() {
  const char* dir = std::getenv("EDGEADMM_DATA");
  return dir != nullptr ? dir : "../shared/data";
}

double RoundToFloat(double v) {
  return static_cast<double>(static_cast<float>(v));
}

FleetSetup PrepareFleet(TempDatabase& t, int devices, size_t records) {
  FleetSetup setup;
  setup.psk_dir = t.dir() + "/psk";
  EXPECT_EQ(std::system(("mkdir -p '" + setup.psk_dir + "'").c_str()), 0);
  registry::DeviceRegistry registry(t.db());
  for (int i = 0; i < devices; ++i) {
    char id[16];
    std::snprintf(id, sizeof(id), "dev-%03d", i);
    auto psk = registry.Add(id);
    EXPECT_TRUE(psk.ok());
    if (!psk.ok()) return setup;
    const std::string key_file = setup.psk_dir + "/" + id;
    std::ofstream(key_file) << Hex(*psk) << "\n";
    // As `edgeadmm devices add --psk-dir` writes them: the fleet refuses
    // key files others can read.
    EXPECT_EQ(chmod(key_file.c_str(), 0600), 0);
  }
  setup.subset = t.dir() + "/a9a-subset.libsvm";
  EXPECT_EQ(std::system(("xz -dc '" + DataDir() + "/a9a.xz' | head -n " +
                         std::to_string(records) + " > '" + setup.subset + "'")
                            .c_str()),
            0);
  return setup;
}

FleetRunResult RunJobOverDtls(
    TempDatabase& t, const FleetSetup& setup, const std::string& toml,
    bool allow_unaccounted_steps, int timeout_s,
    const std::function<void(fleet::DaemonFleetConfig&)>& adjust,
    const std::string& daemon_toml) {
  FleetRunResult result;
  result.job = CreateJobOrDie(t.db(), toml);
  EXPECT_TRUE(
      jobs::SetJobState(t.db(), result.job, jobs::JobState::kRunning).ok());
  const std::string daemon_config = t.dir() + "/aggregatord.toml";
  std::ofstream(daemon_config)
      << "[store]\ndatabase = \"" << t.path()
      << "\"\n[server]\naddress = \"127.0.0.1\"\nport = " << FreeUdpPort()
      << "\n"
      << daemon_toml;
  DaemonProcess daemon(EDGEADMM_DAEMON_PATH, {"--config", daemon_config});
  EXPECT_TRUE(daemon.started());
  if (!daemon.started()) return result;

  fleet::DaemonFleetConfig fc;
  fc.port = static_cast<uint16_t>(daemon.port());
  fc.psk_dir = setup.psk_dir;
  fc.data_path = setup.subset;
  fc.dim = 123;
  fc.allow_unaccounted_steps = allow_unaccounted_steps;
  fc.task_refresh_ms = 2000;
  if (adjust) adjust(fc);
  // A watchdog bounds the run (loopback: it normally takes seconds).
  static volatile std::sig_atomic_t stop = 0;
  stop = 0;
  std::atomic<bool> finished{false};
  std::thread watchdog([&finished, timeout_s] {
    for (int i = 0; i < 10 * timeout_s && !finished; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    stop = 1;
  });
  auto report = fleet::RunDaemonFleet(fc, &stop, nullptr);
  finished = true;
  watchdog.join();
  EXPECT_TRUE(report.ok()) << report.error().ToString();
  result.daemon_exit = daemon.Terminate();
  t.Reopen();
  if (!report.ok()) return result;
  result.report = *report;
  result.ok = true;
  return result;
}

void ExpectCleanRun(const FleetRunResult& run, int devices) {
  EXPECT_TRUE(run.ok);
  EXPECT_EQ(run.report.done, static_cast<size_t>(devices));
  EXPECT_EQ(run.report.steps_refused, 0u);
  EXPECT_EQ(run.daemon_exit, 0);
}

double RidgeLogisticObjective(const DenseDataset& data,
                              const std::vector<double>& z, double l2) {
  const Loss loss{LossKind::kLogistic};
  const size_t dim = z.size();
  double sum = 0;
  for (size_t i = 0; i < data.samples; ++i) {
    double t = 0;
    for (size_t j = 0; j < dim; ++j) t += data.features[i * dim + j] * z[j];
    sum += loss.Value(t, data.labels[i]);
  }
  double norm2 = 0;
  for (double v : z) norm2 += v * v;
  return sum / static_cast<double>(data.samples) + l2 / 2 * norm2;
}

std::vector<double> RidgeLogisticOptimum(const DenseDataset& data, double l2) {
  auto view = data.View();
  EXPECT_TRUE(view.ok());
  if (!view.ok()) return {};
  const size_t dim = view->dim();
  std::vector<std::byte> bytes(ProxSolver::WorkspaceBytes(
      LossKind::kLogistic, ProxMethod::kNewtonCg, data.samples, dim));
  Workspace ws(ByteSpan(bytes.data(), bytes.size()));
  ProxSolver solver;
  EXPECT_EQ(solver.Init(ws, *view, Loss{LossKind::kLogistic}), Status::Ok());
  std::vector<Real> v(dim, 0.0), x(dim, 0.0);
  auto report = solver.Solve(Span<const Real>(v.data(), dim), 1 / l2,
                             Span<Real>(x.data(), dim));
  EXPECT_TRUE(report.ok() && report->converged);
  return std::vector<double>(x.begin(), x.end());
}

bool BeginReferenceStep(LocalTrainer& trainer,
                        std::vector<std::byte>& workspace,
                        AlgorithmKind algorithm, const DenseDataset& data,
                        const fleet::RecordRange& shard,
                        const std::vector<std::byte>& state,
                        EntropySource& entropy) {
  TrainerConfig config;
  config.algorithm = algorithm;
  config.loss = Loss{LossKind::kLogistic};
  config.job_id = 1;
  config.entropy = &entropy;
  config.allow_unaccounted_steps = true;
  auto view = data.Shard(shard.first, shard.count);
  EXPECT_TRUE(view.ok());
  EXPECT_EQ(
      trainer.Init(ByteSpan(workspace.data(), workspace.size()), *view, config),
      Status::Ok());
  if (state.empty()) return false;
  EXPECT_EQ(trainer.LoadState(ConstByteSpan(state.data(), state.size())),
            Status::Ok());
  return true;
}

void EndReferenceStep(LocalTrainer& trainer, std::vector<std::byte>& state) {
  state.resize(LocalTrainer::StateBytes(trainer.state().primary.size()));
  const StatusWithSize saved =
      trainer.SaveState(ByteSpan(state.data(), state.size()));
  EXPECT_TRUE(saved.ok());
  state.resize(saved.size());
}

}  // namespace edgeadmm::testing
