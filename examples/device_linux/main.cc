// edgeadmm-device: one Linux device of a federated job. It runs the SDK's
// DeviceClient over CoAP/DTLS-PSK (libcoap, or the SDK's own client with
// --transport sdk: device_transport.h), with its record in a state
// directory (atomic file replace) and noise seeded from getrandom(2).
//
//   edgeadmm-device --identity sensor-001 --psk-file sensor-001.psk
//       --data a9a.xz --dim 123 --first 0 --count 300 --state-dir state/
//
// Killed at any instant, it restarts from its record: a pending upload is
// resent byte for byte, never recomputed (docs/device.md).
#include <signal.h>
#include <sys/stat.h>
#include <time.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "device_options.h"
#include "device_transport.h"
#include "edgeadmm/crc32.h"
#include "edgeadmm/dataio/adult_csv_reader.h"
#include "edgeadmm/dataio/dense_dataset.h"
#include "edgeadmm/dataio/libsvm_reader.h"
#include "edgeadmm/device_client.h"
#include "edgeadmm/host/version.h"
#include "edgeadmm/local_trainer.h"
#include "edgeadmm/posix/file_storage.h"
#include "edgeadmm/posix/getrandom_entropy.h"
#include "edgeadmm/posix/key_file_mode.h"
#include "edgeadmm/posix/monotonic_clock.h"

namespace edgeadmm::device {
namespace {

volatile sig_atomic_t g_stop = 0;
void OnSignal(int) { g_stop = 1; }

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Reads a hex PSK file (whitespace around it ignored).
bool ReadPsk(const std::string& path, std::vector<std::byte>& key) {
  std::ifstream in(path);
  std::string text;
  if (!in || !(in >> text) || text.size() % 2 != 0 || text.empty()) {
    return false;
  }
  key.clear();
  for (size_t i = 0; i < text.size(); i += 2) {
    const int hi = HexValue(text[i]);
    const int lo = HexValue(text[i + 1]);
    if (hi < 0 || lo < 0) return false;
    key.push_back(static_cast<std::byte>(hi * 16 + lo));
  }
  return true;
}

void PrintUpload(const char* what, ConstByteSpan upload) {
  std::printf("device: %s upload: %zu bytes, crc32 %08x\n", what, upload.size(),
              static_cast<unsigned>(Crc32(upload)));
  std::fflush(stdout);
}

void PrintCounters(const DeviceClient& client) {
  const DeviceClientCounters& c = client.counters();
  std::printf(
      "device: state %s, steps %u, refused %u, uploads accepted %u, "
      "duplicate %u, stale %u, rejected %u, resumed %u, transport errors %u, "
      "last error %s\n",
      ClientStateName(client.state()), c.steps_computed, c.steps_refused,
      c.uploads_accepted, c.uploads_duplicate, c.uploads_stale,
      c.uploads_rejected, c.resumed_uploads, c.transport_errors,
      client.last_error().str());
  std::fflush(stdout);
}

// After each new local step: its job and round and what this job's local
// ledger has spent (docs/privacy.md, "Local ε": the device's own noise,
// replace-one, against the gateway; inf for a step without noise).
// `*job`/`*round`: the last printed. Nothing for an upload resumed after a
// restart (its step was printed by the run that computed it; the trainer
// is loaded at the next step).
void PrintNewStep(const DeviceClient& client, const LocalTrainer& trainer,
                  double delta, uint64_t* job, uint64_t* round) {
  uint64_t j = 0, r = 0;
  if (!client.last_step(j, r) || (j == *job && r == *round)) return;
  const Result<Real> epsilon = trainer.LocalEpsilon();
  if (!epsilon.ok()) return;
  *job = j;
  *round = r;
  std::printf(
      "device: job %llu round %llu: step done, local epsilon %.4g at delta "
      "%.3g (own noise, replace-one, against the gateway)\n",
      static_cast<unsigned long long>(j), static_cast<unsigned long long>(r),
      static_cast<double>(*epsilon), delta);
  std::fflush(stdout);
}

// False, with a message, if the key file can be read by anyone but its
// owner (docs/security.md, "Keys at rest").
bool PskFileIsPrivate(const std::string& path) {
  unsigned mode = 0;
  if (!posix::KeyFileIsShared(path.c_str(), &mode)) return true;
  std::fprintf(stderr,
               "edgeadmm-device: PSK file %s is readable by group or others "
               "(mode %04o); run chmod 600 on it\n",
               path.c_str(), mode);
  return false;
}

int Run(const DeviceOptions& o) {
  std::vector<std::byte> key;
  if (!PskFileIsPrivate(o.psk_file)) return 1;
  if (!ReadPsk(o.psk_file, key)) {
    std::fprintf(stderr, "edgeadmm-device: cannot read a hex PSK from %s\n",
                 o.psk_file.c_str());
    return 1;
  }
  host::ErrorOr<DenseDataset> data = o.format == "csv"
                                         ? ReadAdultCsvFile(o.data)
                                         : ReadLibsvmFile(o.data, o.dim);
  if (!data.ok()) {
    std::fprintf(stderr, "edgeadmm-device: %s\n",
                 data.error().message().c_str());
    return 1;
  }
  // admm-sharing: the party keeps only its column block (of every record;
  // --first/--count then pick the job's records from it).
  if (o.columns != 0) {
    Result<DenseDataset> block =
        ColumnBlock(*data, o.first_column, o.columns, data->samples);
    if (!block.ok()) {
      std::fprintf(stderr,
                   "edgeadmm-device: --columns %llu:%llu: columns [%llu, "
                   "%llu) do not fit the %zu columns of %s (%s)\n",
                   static_cast<unsigned long long>(o.first_column),
                   static_cast<unsigned long long>(o.columns),
                   static_cast<unsigned long long>(o.first_column),
                   static_cast<unsigned long long>(o.first_column + o.columns),
                   data->dim, o.data.c_str(), block.status().str());
      return 1;
    }
    *data = std::move(*block);
  }
  // The scoring phase: the same columns of the job's first K test records.
  DenseDataset test;
  Result<DatasetView> test_view = Result<DatasetView>(DatasetView());
  if (!o.test_data.empty()) {
    host::ErrorOr<DenseDataset> full = ReadLibsvmFile(o.test_data, o.dim);
    Result<DenseDataset> block =
        full.ok() ? ColumnBlock(*full, o.first_column, o.columns,
                                static_cast<size_t>(o.test_count))
                  : Result<DenseDataset>(Status::InvalidArgument());
    if (!block.ok()) {
      std::fprintf(
          stderr,
          "edgeadmm-device: --test-data %s: cannot take columns "
          "[%llu, +%llu) of %llu records (%s)\n",
          o.test_data.c_str(), static_cast<unsigned long long>(o.first_column),
          static_cast<unsigned long long>(o.columns),
          static_cast<unsigned long long>(o.test_count),
          full.ok() ? block.status().str() : full.error().message().c_str());
      return 1;
    }
    test = std::move(*block);
    test_view = test.View();
    if (!test_view.ok()) {
      std::fprintf(stderr, "edgeadmm-device: --test-data: %s\n",
                   test_view.status().str());
      return 1;
    }
  }
  const size_t count = o.count == 0 && o.first < data->samples
                           ? data->samples - o.first
                           : o.count;
  Result<DatasetView> view = data->Shard(o.first, count);
  if (!view.ok()) {
    std::fprintf(stderr, "edgeadmm-device: bad shard [%llu, +%zu): %s\n",
                 static_cast<unsigned long long>(o.first), count,
                 view.status().str());
    return 1;
  }
  if (mkdir(o.state_dir.c_str(), 0700) != 0 && errno != EEXIST) {
    std::perror("edgeadmm-device: state dir");
    return 1;
  }
  FileStorage storage;
  if (!storage.Open(o.state_dir.c_str()).ok()) {
    std::fprintf(stderr, "edgeadmm-device: cannot open %s\n",
                 o.state_dir.c_str());
    return 1;
  }
  GetrandomEntropy entropy;
  DeviceTransport device_transport;
  const Status opened =
      device_transport.Open(o, ConstByteSpan(key.data(), key.size()), entropy);
  if (!opened.ok()) {
    std::fprintf(stderr, "edgeadmm-device: cannot open the %s transport: %s\n",
                 o.transport == DeviceTransportKind::kSdk ? "sdk" : "libcoap",
                 opened == Status::Unimplemented()
                     ? "this build has no Mbed TLS DTLS port"
                     : opened.str());
    return 1;
  }
  Transport& transport = device_transport.get();

  // Every buffer is sized once, before Init; nothing is allocated after.
  // A column block (admm-sharing) makes the task and upload vectors N =
  // records long (DeviceClientConfig::max_vector).
  const size_t dim = view->dim();
  // The last upload of a scoring phase carries the share and K scores. A
  // streaming party (--stream-rows B) holds B-row blocks of them instead.
  const size_t max_vector = o.columns != 0 && o.stream_rows == 0
                                ? view->samples() + test_view->samples()
                                : 0;
  std::printf("device: %zu records x %zu columns%s\n", view->samples(), dim,
              o.columns == 0 ? ""
              : o.stream_rows == 0
                  ? " (a column block: vectors of N = records)"
                  : " (a column block, streamed in row blocks)");
  std::fflush(stdout);
  std::vector<std::byte> trainer_workspace(
      DeviceClient::TrainerWorkspaceBytes(view->samples(), dim));
  std::vector<std::byte> scratch(
      DeviceClient::ComputeScratchBytes(dim, max_vector));
  std::vector<std::byte> memory(
      DeviceClient::MemoryBytes(dim, max_vector, o.stream_rows) +
      (o.secagg_neighbours == 0
           ? 0
           : DeviceClient::SecAggMemoryBytes(dim, o.secagg_neighbours)));
  LocalTrainer trainer;
  DeviceClientConfig config;
  config.device_id = o.identity.c_str();
  config.transport = &transport;
  config.storage = &storage;
  config.entropy = &entropy;
  config.data = *view;
  config.max_vector = max_vector;
  config.stream_rows = o.stream_rows;
  config.secagg_max_neighbours = o.secagg_neighbours;
  config.test_data = *test_view;
  config.trainer = &trainer;
  config.trainer_workspace =
      ByteSpan(trainer_workspace.data(), trainer_workspace.size());
  config.compute_scratch = ByteSpan(scratch.data(), scratch.size());
  config.epsilon_budget = o.epsilon_budget;
  config.lifetime_epsilon_budget = o.lifetime_epsilon;
  config.delta = o.delta;
  config.use_observe = o.observe;
  config.task_refresh_ms = o.refresh_ms;
  config.task_refresh_max_ms = o.refresh_max_ms;
  config.retry_max_ms = o.retry_max_ms;
  config.retry_min_ms = o.retry_max_ms < 1000 ? o.retry_max_ms : 1000;
  config.halt_after_persist = o.halt_after_persist;
  config.penalty_schedule.eta1 = o.pp_eta1;
  config.penalty_schedule.eta_growth = o.pp_eta_growth;
  config.penalty_schedule.eta_max = o.pp_eta_max;
  config.penalty_schedule.alpha1 = o.pp_alpha1;
  config.penalty_schedule.alpha_growth = o.pp_alpha_growth;
  config.penalty_schedule.max_loss = o.pp_max_loss;
  DeviceClient client;
  // The Linux device runs secure-aggregation rounds when asked
  // (--secagg-neighbours): its table links them.
  const Status init =
      client.Init(config, ByteSpan(memory.data(), memory.size()),
                  AllClientAlgorithmsWithSecureRounds());
  if (!init.ok()) {
    std::fprintf(stderr, "edgeadmm-device: bad configuration: %s\n",
                 init.str());
    return 1;
  }

  const uint64_t start = posix::MonotonicMs();
  ClientState last_state = ClientState::kStart;
  bool announced_resume = false;
  uint64_t printed_job = 0, printed_round = 0;
  for (;;) {
    const uint64_t now = posix::MonotonicMs();
    const Status polled = client.Poll(now);
    PrintNewStep(client, trainer, o.delta, &printed_job, &printed_round);
    if (!announced_resume && client.counters().resumed_uploads > 0) {
      announced_resume = true;
      PrintUpload("resuming persisted", client.pending_upload());
    }
    if (client.state() != last_state) {
      last_state = client.state();
      std::printf("device: %s\n", ClientStateName(last_state));
      std::fflush(stdout);
    }
    if (client.state() == ClientState::kHalted) {
      if (o.halt_after_persist && polled.ok()) {
        PrintUpload("persisted", client.pending_upload());
        PrintCounters(client);
        return 3;  // as if the power had been cut here
      }
      PrintCounters(client);
      return 1;
    }
    const DeviceClientCounters& c = client.counters();
    const uint32_t settled = c.uploads_accepted + c.uploads_duplicate +
                             c.uploads_stale + c.uploads_rejected;
    if (client.state() == ClientState::kDone ||
        (o.max_uploads != 0 && settled >= o.max_uploads)) {
      PrintCounters(client);
      return 0;
    }
    if (g_stop) {
      PrintCounters(client);
      return 5;
    }
    if (o.timeout_s != 0 && now - start >= 1000ull * o.timeout_s) {
      PrintCounters(client);
      return 4;
    }
    // Sleep in the transport until a datagram arrives or the client has
    // something to do (at least 20 ms: an exchange in flight reports 0).
    const uint64_t idle = client.IdleMs(now);
    const uint64_t wait = idle < 20 ? 20 : idle > 200 ? 200 : idle;
    transport.Poll(static_cast<uint32_t>(wait)).status().IgnoreError();
  }
}

}  // namespace
}  // namespace edgeadmm::device

int main(int argc, char** argv) {
  signal(SIGTERM, edgeadmm::device::OnSignal);
  signal(SIGINT, edgeadmm::device::OnSignal);
  edgeadmm::device::DeviceOptions options;
  bool help = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--version") == 0) {
      std::printf("edgeadmm-device %s\n", EDGEADMM_VERSION);
      return 0;
    }
  }
  if (!edgeadmm::device::ParseDeviceOptions(argc, argv, options, help)) {
    std::fputs(edgeadmm::device::DeviceUsage(), stderr);
    return 2;
  }
  if (help) {
    std::fputs(edgeadmm::device::DeviceUsage(), stdout);
    return 0;
  }
  return edgeadmm::device::Run(options);
}
