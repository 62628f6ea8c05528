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

FleetRunResult RunJobOverDtls(TempDatabase& t, const FleetSetup& setup,
                              const std::string& toml,
                              bool allow_unaccounted_steps, int timeout_s) {
  FleetRunResult result;
  result.job = CreateJobOrDie(t.db(), toml);
  EXPECT_TRUE(
      jobs::SetJobState(t.db(), result.job, jobs::JobState::kRunning).ok());
  const std::string daemon_config = t.dir() + "/aggregatord.toml";
  std::ofstream(daemon_config)
      << "[store]\ndatabase = \"" << t.path()
      << "\"\n[server]\naddress = \"127.0.0.1\"\nport = " << FreeUdpPort()
      << "\n";
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

bool BeginReferenceStep(LocalTrainer& trainer, std::vector<std::byte>& workspace,
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
