#include "edgeadmm/fleet/fleet_simulator.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <random>

#include "edgeadmm/dataio/dataset_source.h"
#include "edgeadmm/dataio/libsvm_reader.h"
#include "edgeadmm/device_client.h"
#include "edgeadmm/fake/fake_aggregator.h"
#include "edgeadmm/fake/loopback_transport.h"
#include "edgeadmm/fake/test_entropy.h"
#include "edgeadmm/fleet/data_split.h"
#include "edgeadmm/fleet/fleet_counters.h"
#include "edgeadmm/fleet/ram_storage.h"
#include "edgeadmm/local_steps.h"
#include "edgeadmm/posix/file_storage.h"
#include "edgeadmm/posix/getrandom_entropy.h"

namespace edgeadmm::fleet {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

struct VirtualDevice {
  std::string id;
  DatasetView view;
  std::unique_ptr<LoopbackTransport> transport;
  std::unique_ptr<RamStorage> ram;
  std::unique_ptr<FileStorage> file;
  std::unique_ptr<TestEntropy> test_entropy;
  std::unique_ptr<std::byte[]> memory;
  size_t memory_size = 0;
  DeviceClientConfig config;
  DeviceClient client;
  bool online = true;
  bool crash_pending = false;
  FleetCounters past;  // counters of earlier client instances

  ByteSpan Memory() { return ByteSpan(memory.get(), memory_size); }
  // Restarts the client from its storage (a reboot).
  Status Restart(bool halt_after_persist) {
    past += client.counters();
    transport->Reset();
    config.halt_after_persist = halt_after_persist;
    return client.Init(config, Memory());
  }
};

host::ErrorOr<DenseDataset> LoadData(const FleetConfig& config) {
  DatasetSource source;
  source.path = config.data_path;
  source.format = config.format;
  source.dim = config.format == DataFormat::kAdultCsv ? 0 : config.dim;
  source.normalization = config.normalization;
  return LoadDataset(source);
}

Status MakeDirectory(const std::string& path) {
  if (mkdir(path.c_str(), 0700) == 0 || errno == EEXIST) return Status::Ok();
  return Status::Unavailable();
}

// Fraction of records whose label has the sign of aᵀz.
double Accuracy(const DenseDataset& data, Span<const Real> z) {
  size_t correct = 0;
  for (size_t j = 0; j < data.samples; ++j) {
    Real margin = 0;
    for (size_t i = 0; i < data.dim; ++i) {
      margin += data.features[j * data.dim + i] * z[i];
    }
    if ((margin >= 0 ? 1.0 : -1.0) == data.labels[j]) ++correct;
  }
  return data.samples == 0
             ? 0.0
             : static_cast<double>(correct) / static_cast<double>(data.samples);
}

Status CheckConfig(const FleetConfig& c) {
  const auto probability = [](double p) { return p >= 0 && p < 1; };
  if (c.devices == 0 || c.rounds == 0 || !probability(c.loss) ||
      !probability(c.dropout) || !probability(c.reboot) || c.tick_ms == 0 ||
      c.round_deadline_ms < c.tick_ms || c.data_path.empty()) {
    return Status::InvalidArgument();
  }
  return Status::Ok();
}

// The in-process aggregator's job: prox-admm with the fleet's step.
FakeAggregatorConfig AggregatorConfig(const FleetConfig& config) {
  FakeAggregatorConfig job;
  job.job_id = 1;
  job.first_round = 1;
  job.lambda = config.lambda;
  job.gamma = config.gamma;
  job.clip = config.clip;
  job.sigma = config.sigma;
  job.deadline_ms = config.round_deadline_ms;
  return job;
}

// What the virtual devices share: they compute one at a time.
struct SharedTrainer {
  SharedTrainer(size_t max_samples, size_t dim)
      : workspace(LocalStepWorkspaceBytes(
            AlgorithmKind::kProxAdmm, LossKind::kLogistic, max_samples, dim)),
        scratch(DeviceClient::ComputeScratchBytes(dim)) {}
  LocalTrainer trainer;
  std::vector<std::byte> workspace;
  std::vector<std::byte> scratch;
  GetrandomEntropy entropy;
};

// Virtual device i on `shard` of `data`, enrolled with `server`, its client
// started.
host::ErrorOr<std::unique_ptr<VirtualDevice>> MakeVirtualDevice(
    const FleetConfig& config, size_t i, const DenseDataset& data,
    const RecordRange& shard, FakeAggregator& server, const LinkConfig& link,
    SharedTrainer& shared) {
  const size_t dim = data.dim;
  auto d = std::make_unique<VirtualDevice>();
  char id[32];
  std::snprintf(id, sizeof(id), "fleet-%06zu", i);
  d->id = id;
  EDGEADMM_HOST_TRY(
      host::Error(server.AddDevice(d->id.c_str()), "cannot enroll " + d->id));
  Result<DatasetView> view = data.Shard(shard.first, shard.count);
  EDGEADMM_HOST_TRY(host::Error(view.status(), "bad shard"));
  d->view = *view;
  LinkConfig device_link = link;
  device_link.seed = config.seed * 1000003u + i;
  d->transport =
      std::make_unique<LoopbackTransport>(server, d->id.c_str(), device_link);
  if (config.state_dir.empty()) {
    d->ram = std::make_unique<RamStorage>();
    d->config.storage = d->ram.get();
  } else {
    const std::string dir = config.state_dir + "/" + d->id;
    d->file = std::make_unique<FileStorage>();
    if (!MakeDirectory(dir).ok() || !d->file->Open(dir.c_str()).ok()) {
      return host::Error::Unavailable("cannot open state dir " + dir);
    }
    d->config.storage = d->file.get();
  }
  if (config.deterministic_entropy) {
    d->test_entropy = std::make_unique<TestEntropy>(config.seed * 7919 + i);
    d->config.entropy = d->test_entropy.get();
  } else {
    d->config.entropy = &shared.entropy;
  }
  d->memory_size = DeviceClient::MemoryBytes(dim);
  d->memory = std::make_unique<std::byte[]>(d->memory_size);
  d->config.device_id = d->id.c_str();
  d->config.transport = d->transport.get();
  d->config.data = d->view;
  d->config.trainer = &shared.trainer;
  d->config.trainer_workspace =
      ByteSpan(shared.workspace.data(), shared.workspace.size());
  d->config.compute_scratch =
      ByteSpan(shared.scratch.data(), shared.scratch.size());
  d->config.epsilon_budget = config.epsilon_budget;
  d->config.delta = config.delta;
  d->config.task_refresh_ms = 30000;
  d->config.retry_min_ms = 1000;
  d->config.retry_max_ms = 16000;
  EDGEADMM_HOST_TRY(host::Error(d->client.Init(d->config, d->Memory()),
                                "cannot start " + d->id));
  return d;
}

// Polls the online devices in virtual time until `online` uploads are
// accepted or the round's deadline passes; returns the new time.
uint64_t RunRound(const FleetConfig& config,
                  std::vector<std::unique_ptr<VirtualDevice>>& devices,
                  const FakeAggregator& server, size_t online, uint64_t now_ms,
                  FleetReport& report) {
  const uint64_t round_begin_ms = now_ms;
  while (server.accepted_this_round() < online &&
         now_ms - round_begin_ms < config.round_deadline_ms) {
    // When every device waits (a backoff, the next refresh), jump virtual
    // time to the first wake-up, at most kMaxJumpMs at once.
    constexpr uint64_t kMaxJumpMs = 1000;
    uint64_t wake_ms = kMaxJumpMs;
    for (auto& d : devices) {
      if (!d->online) continue;
      d->client.Poll(now_ms).IgnoreError();
      d->transport->Poll(0).status().IgnoreError();
      d->client.Poll(now_ms).IgnoreError();  // take what the link delivered
      if (d->crash_pending && d->client.state() == ClientState::kHalted) {
        d->crash_pending = false;  // power is back: boot from storage
        ++report.reboots;
        d->Restart(false).IgnoreError();
        wake_ms = 0;
      }
      wake_ms = std::min(wake_ms, d->client.IdleMs(now_ms));
    }
    now_ms += std::max<uint64_t>(wake_ms, config.tick_ms);
  }
  return now_ms;
}

// Which devices are online this round and which lose power after their
// next persist (drawn from `faults`); returns how many are online.
size_t DrawFaults(const FleetConfig& config,
                  std::vector<std::unique_ptr<VirtualDevice>>& devices,
                  std::mt19937_64& faults) {
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  size_t online = 0;
  for (auto& d : devices) {
    d->online = uniform(faults) >= config.dropout;
    d->crash_pending = d->online && uniform(faults) < config.reboot;
    online += d->online ? 1 : 0;
    // Arm (or disarm) the power cut after the next persist.
    if (d->crash_pending != d->config.halt_after_persist) {
      d->Restart(d->crash_pending).IgnoreError();
    }
  }
  return online;
}

// Lets every device hear the end of the job and collect late receipts.
void Drain(const FleetConfig& config,
           std::vector<std::unique_ptr<VirtualDevice>>& devices,
           uint64_t now_ms) {
  for (int tick = 0; tick < 2000; ++tick) {
    bool busy = false;
    for (auto& d : devices) {
      d->client.Poll(now_ms).IgnoreError();
      d->transport->Poll(0).status().IgnoreError();
      busy = busy || !d->client.pending_upload().empty() ||
             d->client.state() == ClientState::kUploading;
    }
    now_ms += config.tick_ms;
    if (!busy) break;
  }
}

// The fleet's counters and the aggregator's totals into `report`, and
// whether every computed step was acknowledged or accounted once.
void Tally(const std::vector<std::unique_ptr<VirtualDevice>>& devices,
           const FakeAggregator& server, FleetReport& report) {
  uint64_t pending = 0;
  uint64_t client_stale = 0;
  uint64_t client_rejected = 0;
  for (auto& d : devices) {
    FleetCounters c = d->past;
    c += d->client.counters();
    report.steps_computed += c.steps_computed;
    report.upload_attempts += c.upload_attempts;
    report.uploads_acknowledged += c.uploads_accepted + c.uploads_duplicate;
    report.resumed_uploads += c.resumed_uploads;
    report.transport_errors += c.transport_errors;
    client_stale += c.uploads_stale;
    client_rejected += c.uploads_rejected;
    pending += d->client.pending_upload().empty() ? 0 : 1;
    const LinkStats& s = d->transport->stats();
    report.datagrams += s.datagrams;
    report.datagrams_lost += s.datagrams_lost;
    report.bytes += s.bytes;
  }
  const FakeAggregatorTotals& t = server.totals();
  report.accepted = t.accepted;
  report.duplicates = t.duplicates;
  report.conflicts = t.conflicts;
  report.stale = t.stale;
  report.rejected = t.rejected;
  report.reports = t.reports;
  report.exactly_once = t.conflicts == 0 &&
                        report.steps_computed == t.accepted + client_stale +
                                                     client_rejected +
                                                     pending &&
                        report.uploads_acknowledged >= t.accepted;
}

}  // namespace

size_t ResidentBytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  unsigned long pages_total = 0;
  unsigned long pages_resident = 0;
  const int n = std::fscanf(f, "%lu %lu", &pages_total, &pages_resident);
  std::fclose(f);
  return n == 2 ? pages_resident * static_cast<size_t>(sysconf(_SC_PAGESIZE))
                : 0;
}

host::ErrorOr<FleetReport> RunFleet(const FleetConfig& config,
                                    std::FILE* progress) {
  if (!CheckConfig(config).ok()) {
    return host::Error::InvalidArgument("bad fleet configuration");
  }
  const Clock::time_point setup_start = Clock::now();
  EDGEADMM_HOST_TRY_ASSIGN(const DenseDataset data, LoadData(config));
  Result<std::vector<RecordRange>> shards =
      SplitRecords(data.samples, config.devices);
  if (!shards.ok()) {
    return host::Error(shards.status(),
                       "more devices than records in the data");
  }
  const size_t dim = data.dim;
  size_t max_samples = 0;
  for (const RecordRange& r : *shards)
    max_samples = std::max(max_samples, r.count);

  // The aggregator side.
  const FakeAggregatorConfig job = AggregatorConfig(config);
  std::vector<FakeDeviceEntry> table(2 * config.devices + 8);
  std::vector<Real> model(dim, 0.0);
  std::vector<Real> u_sum(dim, 0.0);
  std::vector<Real> decode(dim, 0.0);
  FakeAggregator server(job, Span<FakeDeviceEntry>(table.data(), table.size()),
                        Span<Real>(model.data(), dim),
                        Span<Real>(u_sum.data(), dim),
                        Span<Real>(decode.data(), dim));

  SharedTrainer shared(max_samples, dim);
  if (!config.state_dir.empty()) {
    EDGEADMM_HOST_TRY(host::Error(MakeDirectory(config.state_dir),
                                  "cannot create " + config.state_dir));
  }

  FleetReport report;
  report.devices = config.devices;
  report.dim = dim;
  report.rss_before_bytes = ResidentBytes();
  LinkConfig link;
  link.loss_per_million = static_cast<uint32_t>(config.loss * 1e6 + 0.5);
  link.max_retransmit = config.max_retransmit;
  std::vector<std::unique_ptr<VirtualDevice>> devices;
  devices.reserve(config.devices);
  for (size_t i = 0; i < config.devices; ++i) {
    EDGEADMM_HOST_TRY_ASSIGN(
        std::unique_ptr<VirtualDevice> d,
        MakeVirtualDevice(config, i, data, (*shards)[i], server, link, shared));
    devices.push_back(std::move(d));
  }
  report.setup_seconds = SecondsSince(setup_start);

  std::mt19937_64 faults(config.seed);  // fault injection only, not noise
  uint64_t now_ms = 0;
  const Clock::time_point run_start = Clock::now();
  for (uint32_t r = 0; r < config.rounds; ++r) {
    const Clock::time_point round_start = Clock::now();
    const size_t online = DrawFaults(config, devices, faults);
    now_ms = RunRound(config, devices, server, online, now_ms, report);
    RoundLine line;
    line.round = server.round();
    line.online = online;
    line.accepted = server.accepted_this_round();
    if (r + 1 < config.rounds) {
      server.AdvanceRound();
    } else {
      server.Finish();
    }
    line.accuracy = Accuracy(data, server.model());
    line.seconds = SecondsSince(round_start);
    report.lines.push_back(line);
    if (progress != nullptr) {
      std::fprintf(progress,
                   "fleet: round %llu: %zu/%zu online, %zu accepted, "
                   "accuracy %.4f, %.2f s\n",
                   static_cast<unsigned long long>(line.round), line.online,
                   config.devices, line.accepted, line.accuracy, line.seconds);
      std::fflush(progress);
    }
    if (r == 0) report.rss_after_bytes = ResidentBytes();
  }
  Drain(config, devices, now_ms);
  report.run_seconds = SecondsSince(run_start);
  report.rounds = config.rounds;

  Tally(devices, server, report);
  if (report.rss_after_bytes > report.rss_before_bytes) {
    report.bytes_per_device =
        static_cast<double>(report.rss_after_bytes - report.rss_before_bytes) /
        static_cast<double>(config.devices);
  }
  return report;
}

}  // namespace edgeadmm::fleet
