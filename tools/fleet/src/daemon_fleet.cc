#include "edgeadmm/fleet/daemon_fleet.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <memory>
#include <vector>

#include "edgeadmm/device_client.h"
#include "edgeadmm/failover_transport.h"
#include "edgeadmm/fleet/byte_count_transport.h"
#include "edgeadmm/fleet/daemon_fleet_data.h"
#include "edgeadmm/fleet/data_split.h"
#include "edgeadmm/fleet/fleet_progress.h"
#include "edgeadmm/fleet/float16_share_transport.h"
#include "edgeadmm/fleet/paired_seed.h"
#include "edgeadmm/fleet/poll_schedule.h"
#include "edgeadmm/fleet/psk_files.h"
#include "edgeadmm/fleet/ram_storage.h"
#include "edgeadmm/fleet/source_addresses.h"
#include "edgeadmm/fleet/steering_transport.h"
#include "edgeadmm/fleet/step_history.h"
#include "edgeadmm/local_trainer.h"
#include "edgeadmm/posix/coap_client_context.h"
#include "edgeadmm/posix/coap_dtls_transport.h"
#include "edgeadmm/posix/file_storage.h"
#include "edgeadmm/posix/getrandom_entropy.h"

namespace edgeadmm::fleet {
namespace {

using Clock = std::chrono::steady_clock;

struct Device {
  std::string id;
  std::vector<uint8_t> key;
  posix::CoapDtlsConfig link;
  std::unique_ptr<posix::CoapDtlsTransport> transport;
  // DaemonFleetConfig::more_gateways: one transport each, and the
  // FailoverTransport over `transport` and them (empty/null: one gateway).
  std::vector<std::unique_ptr<posix::CoapDtlsTransport>> more;
  std::vector<Transport*> gateways;
  std::unique_ptr<FailoverTransport> failover;
  // --share-float16 or a steering device: the decorator of `transport`.
  std::unique_ptr<UpdateRewriteTransport> rewrite;
  // DaemonFleetConfig::unsafe_paired_seed: the entropy and its decorator.
  std::unique_ptr<PairedSeedEntropy> paired_entropy;
  std::unique_ptr<PairedSeedTransport> paired;
  std::unique_ptr<ByteCountTransport> counted;  // outermost: bodies counted
  std::unique_ptr<RamStorage> ram;
  std::unique_ptr<FileStorage> file;
  std::vector<std::byte> memory;
  DeviceClientConfig config;
  const ClientAlgorithmTable* algorithms = &AllClientAlgorithms();
  DeviceClient client;
  // DaemonFleetConfig::history_dir's file, and the steps already written.
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> history{nullptr,
                                                          &std::fclose};
  uint32_t steps_logged = 0;
  size_t record_bytes = 0;
  // Churn (DaemonFleetConfig::churn_fraction): this device leaves and
  // returns; `away` while it is off (since `left_ms`), `returned` after;
  // the counters of its client before the restart (Init resets them).
  bool churns = false;
  bool away = false;
  bool returned = false;
  uint64_t left_ms = 0;
  FleetCounters before;
  // What RunDevices' last poll of this device saw.
  bool seen_done = false;
  bool seen_connected = false;
  uint64_t seen_accepted = 0;
};

Status OpenStorage(const DaemonFleetConfig& c, Device& d) {
  if (c.state_dir.empty()) {
    d.ram = std::make_unique<RamStorage>(c.secagg_neighbours > 0 ? 3 : 1);
    d.config.storage = d.ram.get();
    return Status::Ok();
  }
  const std::string dir = c.state_dir + "/" + d.id;
  if (mkdir(c.state_dir.c_str(), 0700) != 0 && errno != EEXIST) {
    return Status::Unavailable();
  }
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    return Status::Unavailable();
  }
  d.file = std::make_unique<FileStorage>();
  EDGEADMM_TRY(d.file->Open(dir.c_str()));
  d.config.storage = d.file.get();
  return Status::Ok();
}

// What all devices share: one libcoap client context (sharded by
// CoapClientContext::ShardsFor), and one trainer (one thread computes one
// step at a time) with its buffers, sized for whichever algorithm and loss
// the daemon's job turns out to run. Outlives the devices (their
// transports hold the context and the local ports).
struct Shared {
  Shared(const FleetData& f, size_t devices)
      : context(posix::CoapClientContext::ShardsFor(devices)),
        workspace(
            DeviceClient::TrainerWorkspaceBytes(f.max_samples, f.max_dim)),
        scratch(DeviceClient::ComputeScratchBytes(f.max_dim, f.max_vector)) {}
  std::unique_ptr<SourceAddresses> local_addresses;
  posix::CoapClientContext context;
  LocalTrainer trainer;
  std::vector<std::byte> workspace;
  std::vector<std::byte> scratch;
  GetrandomEntropy entropy;
};

// The transport of device `d` with the fleet's gateways: `d.transport`
// alone, or a FailoverTransport over it and a transport to each of
// config.more_gateways (same identity, key and settings); device `index`
// starts on gateway index mod their number with config.spread_gateways.
Transport& ConnectGateways(const DaemonFleetConfig& config, Shared& shared,
                           size_t index, Device& d) {
  if (config.more_gateways.empty()) return *d.transport;
  d.gateways.push_back(d.transport.get());
  for (const GatewayAddress& g : config.more_gateways) {
    posix::CoapDtlsConfig link = d.link;
    link.host = g.host.c_str();
    link.port = g.port;
    d.more.push_back(
        std::make_unique<posix::CoapDtlsTransport>(shared.context, link));
    d.gateways.push_back(d.more.back().get());
  }
  d.failover = std::make_unique<FailoverTransport>(
      d.gateways.data(), d.gateways.size(), config.spread_gateways ? index : 0);
  return *d.failover;
}

// True once any of the device's gateways completed a handshake.
bool EverConnected(const Device& d) {
  if (d.transport->ever_connected()) return true;
  for (const auto& more : d.more) {
    if (more->ever_connected()) return true;
  }
  return false;
}

// Device i's transport (its decorators over `link`) and entropy: a
// measurement's rewrite, and the UNSAFE paired seed's (paired_seed.h).
void Decorate(const DaemonFleetConfig& config, size_t i, Transport& link,
              Shared& shared, Device& d) {
  d.config.transport = &link;
  if (config.share_float16) {
    d.rewrite = std::make_unique<Float16ShareTransport>(link);
  } else if (i < config.steering_devices) {
    d.rewrite = std::make_unique<SteeringTransport>(link, config.steering_bound,
                                                    config.steering_mode);
  }
  if (d.rewrite) d.config.transport = d.rewrite.get();
  d.config.entropy = &shared.entropy;
  if (!config.unsafe_paired_seed.empty()) {
    d.paired_entropy =
        std::make_unique<PairedSeedEntropy>(config.unsafe_paired_seed, d.id);
    d.paired = std::make_unique<PairedSeedTransport>(*d.config.transport,
                                                     *d.paired_entropy);
    d.config.transport = d.paired.get();
    d.config.entropy = d.paired_entropy.get();
  }
  d.counted = std::make_unique<ByteCountTransport>(*d.config.transport);
  d.config.transport = d.counted.get();
}

// Device i of the fleet (`id`), its client initialised; its transports
// report news with `wake_tag` (its index in this process).
host::ErrorOr<std::unique_ptr<Device>> MakeDevice(
    const DaemonFleetConfig& config, size_t i, size_t wake_tag,
    const std::string& id, const FleetData& f, const PenaltySchedule& schedule,
    posix::LocalPortPool* local_ports, Shared& shared) {
  auto d = std::make_unique<Device>();
  d->id = id;
  auto key = ReadPskFile(config.psk_dir + "/" + d->id);
  if (!key.ok()) {
    return host::Error(key.status(), "bad PSK file for " + d->id);
  }
  d->key = std::move(key).value();
  d->link.host = config.host.c_str();
  d->link.port = config.port;
  d->link.identity = d->id.c_str();
  d->link.key = ConstByteSpan(reinterpret_cast<const std::byte*>(d->key.data()),
                              d->key.size());
  d->link.ack_timeout_ms = config.ack_timeout_ms;
  d->link.silence_timeout_ms = config.silence_timeout_ms;
  d->link.local_ports = local_ports;
  d->link.wake_tag = wake_tag;
  d->transport =
      std::make_unique<posix::CoapDtlsTransport>(shared.context, d->link);
  Transport& link = ConnectGateways(config, shared, i, *d);
  if (!OpenStorage(config, *d).ok()) {
    return host::Error::Unavailable("cannot open state of " + d->id);
  }
  auto view = f.blocks.empty()
                  ? f.data.Shard(f.shards[i].first, f.shards[i].count)
                  : f.blocks[i].View();
  if (!view.ok()) return host::Error(view.status(), "bad shard");
  d->config.device_id = d->id.c_str();
  d->config.job = config.job.c_str();
  d->config.storage_key = config.storage_key.c_str();
  Decorate(config, i, link, shared, *d);
  d->config.data = *view;
  if (!f.test_blocks.empty()) {
    auto test_view = f.test_blocks[i].View();
    if (!test_view.ok())
      return host::Error(test_view.status(), "bad test block");
    d->config.test_data = *test_view;
  }
  d->config.trainer = &shared.trainer;
  d->config.trainer_workspace =
      ByteSpan(shared.workspace.data(), shared.workspace.size());
  d->config.compute_scratch =
      ByteSpan(shared.scratch.data(), shared.scratch.size());
  d->config.epsilon_budget = config.epsilon_budget;
  d->config.allow_unaccounted_steps = config.allow_unaccounted_steps;
  d->config.penalty_schedule = schedule;
  d->config.delta = config.delta;
  d->config.task_refresh_ms = config.task_refresh_ms;
  d->config.task_refresh_max_ms = config.task_refresh_max_ms;
  d->config.retry_min_ms = 500;
  d->config.retry_max_ms = 8000;
  d->config.max_vector = f.max_vector;
  d->config.secagg_max_neighbours = config.secagg_neighbours;
  d->config.secagg_poll_ms = config.secagg_poll_ms;
  const size_t dim = d->config.data.dim();
  d->memory.resize(
      DeviceClient::MemoryBytes(dim, f.max_vector) +
      (config.secagg_neighbours == 0
           ? 0
           : DeviceClient::SecAggMemoryBytes(dim, config.secagg_neighbours)));
  if (config.secagg_neighbours > 0) {
    d->algorithms = &AllClientAlgorithmsWithSecureRounds();
  }
  const Status init = d->client.Init(
      d->config, ByteSpan(d->memory.data(), d->memory.size()), *d->algorithms);
  if (!init.ok()) return host::Error(init, "cannot start " + d->id);
  if (!config.history_dir.empty()) {
    const std::string path = config.history_dir + "/" + d->id + ".tsv";
    if (mkdir(config.history_dir.c_str(), 0700) != 0 && errno != EEXIST) {
      return host::Error::InvalidArgument("cannot create " +
                                          config.history_dir);
    }
    d->history.reset(std::fopen(path.c_str(), "w"));
    if (!d->history) {
      return host::Error::InvalidArgument("cannot write " + path);
    }
    d->record_bytes =
        DeviceClient::RecordBytes(d->config.data.dim(), f.max_vector);
  }
  return d;
}

// Churn at `now_ms`: a churning device switches off at churn_at_ms, or
// after its churn_after_uploads-th accepted upload (session dropped, no
// goodbye), and back on churn_away_ms later, restarted from its persisted
// record as after a reboot; the index of each restarted device is appended
// to `restarted` (it has to be polled).
Status StepChurn(const DaemonFleetConfig& config,
                 std::vector<std::unique_ptr<Device>>& devices, uint64_t now_ms,
                 std::vector<size_t>* restarted) {
  if (config.churn_fraction <= 0) return Status::Ok();
  for (size_t i = 0; i < devices.size(); ++i) {
    Device* d = devices[i].get();
    if (!d->churns || d->returned) continue;
    if (!d->away) {
      const bool leave = config.churn_after_uploads > 0
                             ? d->client.counters().uploads_accepted >=
                                   config.churn_after_uploads
                             : now_ms >= config.churn_at_ms;
      if (!leave) continue;
      d->away = true;
      d->left_ms = now_ms;
      d->transport->Close();
    } else if (now_ms >= d->left_ms + config.churn_away_ms) {
      d->away = false;
      d->returned = true;
      d->before += d->client.counters();
      EDGEADMM_TRY(d->client.Init(d->config,
                                  ByteSpan(d->memory.data(), d->memory.size()),
                                  *d->algorithms));
      restarted->push_back(i);
    }
  }
  return Status::Ok();
}

// The fleet now: counters summed over every device and its restarts.
FleetSample Sample(const std::vector<std::unique_ptr<Device>>& devices,
                   size_t started) {
  FleetSample s;
  s.devices = devices.size();
  for (size_t i = 0; i < devices.size(); ++i) {
    const Device& d = *devices[i];
    s.counters += d.before;
    s.counters += d.client.counters();
    s.done += d.client.state() == ClientState::kDone ? 1 : 0;
    s.away += d.away ? 1 : 0;
    s.sessions += d.transport->connected() ? 1 : 0;
    s.connected += i < started && d.transport->ever_connected() ? 1 : 0;
    s.registered += i < started && d.transport->ever_registered() ? 1 : 0;
    s.handshakes += d.transport->handshakes();
    s.session_ends += d.transport->session_ends();
    s.notifications += d.transport->notifications();
  }
  return s;
}

// How many devices may have started at `elapsed_ms`: the start rate and
// the in-flight limit (`starting`: started devices not yet through a
// handshake); moves the rate's base when the limit holds starts back.
size_t AllowedStarts(const DaemonFleetConfig& config, size_t devices,
                     size_t started, size_t starting, uint64_t elapsed_ms,
                     uint64_t* rate_base_ms, size_t* rate_base) {
  size_t allowed = devices;
  if (config.start_per_second > 0) {
    allowed = std::min(allowed,
                       *rate_base + 1 +
                           static_cast<size_t>(
                               static_cast<double>(elapsed_ms - *rate_base_ms) *
                               config.start_per_second / 1000.0));
  }
  if (config.max_starting > 0) {
    const size_t room =
        config.max_starting > starting ? config.max_starting - starting : 0;
    if (started + room < allowed) {
      // Held back by the in-flight limit: the rate counts from now, so
      // no burst of overdue starts follows.
      allowed = started + room;
      *rate_base_ms = elapsed_ms;
      *rate_base = allowed;
    }
  }
  return std::max(started, allowed);
}

// A device that waits for an answer is polled at least this often even if
// its transport reports nothing: its handshake and silence deadlines
// (CoapDtlsConfig) are checked when it is polled.
constexpr uint64_t kInFlightCheckMs = 250;
// Any other waiting device at least this often (a secure round's phases
// and a refresh are timed by the client; IdleMs gives an upper bound).
constexpr uint64_t kMaxSleepMs = 1000;
// The longest wait for I/O in one pass of the loop, and the longest a pass
// polls devices before it reads the sockets again.
constexpr uint32_t kMaxPassWaitMs = 20;
constexpr uint64_t kMaxPassWorkMs = 20;

// When `client` wants its next poll, polled at `now_ms`: now_ms for the
// next pass, later when it waits (a timer of its own, or an answer that its
// transport reports through CoapClientContext::TakeWoken).
uint64_t NextPollMs(const DeviceClient& client, uint64_t now_ms) {
  switch (client.state()) {
    case ClientState::kFetchingTask:
    case ClientState::kUploading:
    case ClientState::kReporting:
      return now_ms + kInFlightCheckMs;
    default: {
      const uint64_t idle = client.IdleMs(now_ms);
      return now_ms + std::min(idle, kMaxSleepMs);
    }
  }
}

// What RunDevices counts as it polls (each device's part kept in it).
struct FleetTally {
  size_t done = 0;        // devices that saw the end of the job
  size_t connected = 0;   // started devices through a first handshake
  uint64_t accepted = 0;  // uploads accepted, restarts included
};

// Polls device `d` at `now_ms`, writes its step history and updates `tally`.
host::Error PollDevice(const DaemonFleetConfig& config, uint64_t now_ms,
                       Device& d, FleetTally& tally) {
  d.client.Poll(now_ms).IgnoreError();
  if (d.history && d.client.counters().steps_computed > d.steps_logged) {
    d.steps_logged = d.client.counters().steps_computed;
    const Status logged = AppendStepHistory(*d.config.storage, d.record_bytes,
                                            config.delta, d.history.get());
    if (!logged.ok()) return host::Error(logged, "history of " + d.id);
  }
  const bool is_done = d.client.state() == ClientState::kDone;
  tally.done = tally.done + (is_done ? 1 : 0) - (d.seen_done ? 1 : 0);
  d.seen_done = is_done;
  if (!d.seen_connected && EverConnected(d)) {
    d.seen_connected = true;
    ++tally.connected;
  }
  const uint64_t accepted =
      d.before.uploads_accepted + d.client.counters().uploads_accepted;
  tally.accepted += accepted - d.seen_accepted;
  d.seen_accepted = accepted;
  return host::Error::Ok();
}

// Polls the devices (started at the configured rate) until all are done
// or `*stop` is set; writes the step histories and the progress lines. A
// pass polls only the devices with something to do (PollSchedule): the
// fleet's CPU then follows its traffic, not its size.
host::ErrorOr<DaemonFleetReport> RunDevices(
    const DaemonFleetConfig& config,
    std::vector<std::unique_ptr<Device>>& devices,
    posix::CoapClientContext& context, volatile std::sig_atomic_t* stop,
    std::FILE* progress) {
  const Clock::time_point start = Clock::now();
  const auto now_ms = [start] {
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() -
                                                              start)
            .count());
  };
  FleetProgress lines(progress, config.progress_ms, config.watch_pid);
  PollSchedule schedule(devices.size());
  std::vector<size_t> restarted;
  std::vector<size_t> woken;
  // Devices [0, started) run; the rest wait for their start slot.
  size_t started = 0;
  uint64_t rate_base_ms = 0;  // the rate limit counts from here
  size_t rate_base = 0;
  FleetTally tally;
  bool start_marked = false;
  while (stop == nullptr || *stop == 0) {
    const size_t was_started = started;
    started = AllowedStarts(config, devices.size(), started,
                            started - tally.connected, now_ms(), &rate_base_ms,
                            &rate_base);
    for (size_t i = was_started; i < started; ++i) schedule.Now(i);
    restarted.clear();
    EDGEADMM_HOST_TRY(StepChurn(config, devices, now_ms(), &restarted));
    for (size_t i : restarted) schedule.Now(i);
    woken.clear();
    context.TakeWoken(woken);
    const uint64_t pass_start = now_ms();
    const std::vector<size_t>& due = schedule.Due(pass_start, woken);
    for (size_t k = 0; k < due.size(); ++k) {
      const size_t i = due[k];
      Device& d = *devices[i];
      if (i >= started || d.away) continue;
      const uint64_t now = now_ms();
      if (now - pass_start >= kMaxPassWorkMs) {
        // The rest in the next pass, after the sockets are read: a pass
        // that ran every device's key agreements (seconds) read no answer
        // meanwhile, and the devices' transports timed out exchanges
        // whose answers were waiting in the socket.
        for (; k < due.size(); ++k) schedule.Now(due[k]);
        break;
      }
      EDGEADMM_HOST_TRY(PollDevice(config, now, d, tally));
      schedule.At(i, NextPollMs(d.client, now));  // now: the next pass
    }
    // A line when every device has had an upload accepted (the end of the
    // start phase: the load benchmark's mark) and at the end.
    const bool mark = !start_marked && tally.accepted >= devices.size();
    start_marked = start_marked || mark;
    if (lines.Due(now_ms()) || mark || tally.done == devices.size()) {
      lines.Print(now_ms(), Sample(devices, started));
    }
    if (tally.done == devices.size()) break;
    context.Poll(schedule.WaitMs(now_ms(), kMaxPassWaitMs))
        .status()
        .IgnoreError();
  }
  const FleetSample last = Sample(devices, started);
  DaemonFleetReport report;
  static_cast<FleetCounters&>(report) = last.counters;
  report.devices = devices.size();
  report.done = last.done;
  report.handshakes = last.handshakes;
  report.session_ends = last.session_ends;
  for (auto& d : devices) {
    report.churned += d->returned ? 1 : 0;
    report.bytes_up += d->counted->bytes_up();
    report.bytes_down += d->counted->bytes_down();
    d->transport->Close();
    for (auto& more : d->more) more->Close();
  }
  report.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return report;
}

}  // namespace

host::ErrorOr<DaemonFleetReport> RunDaemonFleet(
    const DaemonFleetConfig& config, volatile std::sig_atomic_t* stop,
    std::FILE* progress) {
  if (config.parts == 0 || config.part >= config.parts ||
      !(config.start_per_second >= 0) ||
      !(config.churn_fraction >= 0 && config.churn_fraction <= 1)) {
    return host::Error::InvalidArgument(
        "bad part (need 0 <= part < parts), start rate or churn fraction (in "
        "[0, 1])");
  }
  Result<std::vector<std::string>> ids = ListPskIds(config.psk_dir);
  if (!ids.ok() || ids->empty()) {
    return host::Error::NotFound("no PSK files in " + config.psk_dir);
  }
  const std::vector<size_t> mine =
      PartIndices(*ids, config.part, config.parts, config.device_prefix);
  if (mine.empty()) {
    return host::Error::InvalidArgument(
        "no device in this part (or with this device prefix)");
  }
  EDGEADMM_HOST_TRY_ASSIGN(const std::vector<PenaltySchedule> schedules,
                           Schedules(config, ids->size()));
  EDGEADMM_HOST_TRY(RefuseSharedKeyFiles(config.psk_dir, *ids));
  std::unique_ptr<SourceAddresses> addresses;
  if (!config.local_address.empty()) {
    EDGEADMM_HOST_TRY_ASSIGN(
        SourceAddresses a,
        SourceAddresses::Make(config.local_address, config.local_addresses,
                              mine.size()));
    addresses = std::make_unique<SourceAddresses>(std::move(a));
  }
  EDGEADMM_HOST_TRY_ASSIGN(const FleetData f,
                           LoadFleetData(config, ids->size()));
  Shared shared(f, mine.size());
  shared.local_addresses = std::move(addresses);
  if (!shared.context.status().ok()) {
    return host::Error(shared.context.status(), "libcoap context without DTLS");
  }
  std::vector<std::unique_ptr<Device>> devices;
  for (size_t i : mine) {
    EDGEADMM_HOST_TRY_ASSIGN(
        std::unique_ptr<Device> d,
        MakeDevice(config, i, devices.size(), (*ids)[i], f, schedules[i],
                   shared.local_addresses
                       ? shared.local_addresses->ForDevice(devices.size())
                       : nullptr,
                   shared));
    const size_t j = devices.size();
    d->churns =
        static_cast<size_t>(static_cast<double>(j + 1) *
                            config.churn_fraction) >
        static_cast<size_t>(static_cast<double>(j) * config.churn_fraction);
    devices.push_back(std::move(d));
  }
  return RunDevices(config, devices, shared.context, stop, progress);
}

}  // namespace edgeadmm::fleet
