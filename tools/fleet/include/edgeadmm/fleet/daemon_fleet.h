// DaemonFleet: N enrolled devices in one process against the REAL aggregator
// daemon: each device is a DeviceClient over its own CoapDtlsTransport (DTLS
// 1.2 PSK, identity = device id, key from the enrollment's PSK file), all
// sessions on one CoapClientContext driven by one thread. The demo's and the
// paper reproductions' device side (scripts/demo, tests/repro/). Host only.
#pragma once

#include <csignal>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "edgeadmm/dataio/libsvm_reader.h"
#include "edgeadmm/fleet/fleet_counters.h"
#include "edgeadmm/fleet/fleet_simulator.h"
#include "edgeadmm/fleet/penalty_schedule_options.h"
#include "edgeadmm/fleet/steering_transport.h"
#include "edgeadmm/host/error.h"
#include "edgeadmm/host/upload_bound.h"
#include "edgeadmm/penalty_perturbation_step.h"
#include "edgeadmm/posix/coap_dtls_transport.h"

namespace edgeadmm::fleet {

// A gateway's numeric address and DTLS port.
struct GatewayAddress {
  std::string host;
  uint16_t port = 5684;
};

struct DaemonFleetConfig {
  std::string host = "127.0.0.1";  // numeric loopback address
  uint16_t port = 5684;
  // Further gateways of the same deployment (several daemons on one
  // database): each device starts on host:port and moves to the next of
  // these, in turn, whenever the one in use stays silent
  // (FailoverTransport; edgeadmm-fleet connect --gateway HOST:PORT).
  std::vector<GatewayAddress> more_gateways;
  // With more_gateways: device i starts on gateway i mod (their number)
  // (host:port being gateway 0) instead of host:port (--spread-gateways).
  bool spread_gateways = false;
  // Numeric source address of every device session (e.g. 127.0.0.2), each
  // session on its own port of it (posix::LocalPortPool); empty: the kernel
  // picks. A source address has only the ephemeral port range (28,232 by
  // default) towards one server, and every device has its own socket, so
  // fleet processes that together run more devices use one address each.
  std::string local_address;
  // With local_address (IPv4): spread the process's devices over this many
  // consecutive addresses from it, device j on address j % K
  // (source_addresses.h), so a server sees K hosts; 1: one address.
  size_t local_addresses = 1;
  // One file per device, named after its id, holding the hex PSK
  // (`edgeadmm devices add ID --psk-file DIR/ID`). Devices are the files in
  // sorted order; device i gets the i-th shard of the data.
  std::string psk_dir;
  std::string data_path;
  DataFormat format = DataFormat::kLibsvm;
  size_t dim = 123;
  // LIBSVM labels: ±1 (logistic jobs) or real numbers (squared-loss jobs).
  LibsvmLabels labels = LibsvmLabels::kBinary;
  // Applied after loading; must match the job's validation.normalize.
  RowNormalization normalization = RowNormalization::kNone;
  // Per-device state directories <state_dir>/<id>/; empty: RAM storage.
  std::string state_dir;
  // The job every device serves (DeviceClientConfig::job: its task is
  // v1/task/<name>); empty: the gateway chooses. And the key of each
  // device's record (connect --job NAME: "job-NAME").
  std::string job;
  std::string storage_key = "client";
  double epsilon_budget =
      std::numeric_limits<double>::infinity();  // local budget of every device
  // Lets devices run steps without noise (sigma = 0: reference runs only;
  // no local privacy guarantee). See TrainerConfig.
  bool allow_unaccounted_steps = false;
  // Non-empty: UNSAFE paired-seed noise for benchmarks (paired_seed.h):
  // device i's DRBG in round r is seeded from HMAC-SHA-256 of this key,
  // i's id and r, not from getrandom. Whoever knows it knows the noise.
  std::vector<uint8_t> unsafe_paired_seed;
  // pp-admm: every device's private η and α schedules (never sent).
  PenaltySchedule penalty_schedule;
  // Per device instead (index i = the i-th PSK file of ALL files, the job's
  // node i): exactly one per device; empty: `penalty_schedule` for all.
  std::vector<PenaltySchedule> penalty_schedules;
  // Or from `edgeadmm-fleet connect`'s --pp-* options, resolved against the
  // number of PSK files (ResolvePenaltySchedules); not with the above.
  PenaltyScheduleOptions penalty_options;
  double delta = 1e-5;
  // Runs only the devices whose index i (in the sorted order of ALL PSK
  // files) has i % parts == part, still with the i-th data shard, so that
  // `parts` processes together run the whole fleet (each its own libcoap
  // context and sessions: libcoap walks every session per datagram).
  size_t part = 0;
  size_t parts = 1;
  // And of those only the devices whose id begins with this ("": all),
  // still each with its shard of the whole directory's order.
  std::string device_prefix;
  // Devices start (first handshake) at most this many per second, in index
  // order, so tens of thousands do not handshake at once; 0: all at once.
  double start_per_second = 0;
  // At most this many started devices may still be in their first DTLS
  // handshake; the next device starts only when one completes, so the
  // start rate follows what the daemon answers (0: no limit). libcoap
  // 4.3.1 scans all of a server's sessions for every datagram from an
  // unknown address (each ClientHello), so the daemon's handshake rate
  // falls as sessions accumulate, and a fixed start rate that outran it
  // caused retransmissions and re-handshakes that fed on themselves.
  size_t max_starting = 0;
  uint32_t ack_timeout_ms = 2000;
  // A device re-registers its Observe of v1/task after this long without a
  // notification (DeviceClientConfig::task_refresh_ms). libcoap 4.3.1 scans
  // the resource's whole observer list per registration, so with n devices
  // re-registering every T the daemon does O(n^2 / T) work: keep T above
  // the round time at scale (edgeadmm-fleet connect --task-refresh-ms).
  uint32_t task_refresh_ms = 5000;
  // DeviceClientConfig::task_refresh_max_ms (--task-refresh-max-ms).
  uint32_t task_refresh_max_ms = 120000;
  // posix::CoapDtlsConfig::silence_timeout_ms of every device
  // (edgeadmm-fleet connect --silence-timeout-ms).
  uint32_t silence_timeout_ms = posix::CoapDtlsConfig{}.silence_timeout_ms;
  // Record shards of the given sizes instead of an even split of all
  // records: device i (sorted order) holds the i-th run of shard_sizes[i]
  // consecutive records (one size per device; the rest of the file is
  // unused). Empty: even split (SplitRecords).
  std::vector<size_t> shard_sizes;
  // admm-sharing (papers 000/003): a vertical partition instead of record
  // shards. Device i (sorted order) is party i and holds the i-th block of
  // `column_blocks` consecutive columns of the first `records` records
  // (0: all); there must be one block per device, summing to the data's
  // dimension. Empty: record shards.
  std::vector<size_t> column_blocks;
  size_t records = 0;
  // admm-sharing's scoring phase: with column_blocks, every party also
  // holds its block of the first `test_records` records of this LIBSVM
  // file (the job's test set, aligned by record id with the gateway's test
  // labels; dimension `dim`). Empty: none.
  std::string test_data_path;
  size_t test_records = 0;
  // After every local step, each device appends its persisted model and
  // ledger ε (at `delta`) to <history_dir>/<id>.tsv (step_history.h), so a
  // harness can score every round. Empty: none.
  std::string history_dir;
  // Every upload's values rounded to float16 (float16_share_transport.h):
  // the float16-share measurement of docs/results.md; the bytes stay float32.
  bool share_float16 = false;
  // The first `steering_devices` devices of the part are malicious: every
  // update they send is a SteeringTransport step (steering_transport.h) for
  // `steering_bound` in `steering_mode`, not what their step computed. Not
  // with share_float16.
  size_t steering_devices = 0;
  host::UploadBound steering_bound;
  SteeringMode steering_mode = SteeringMode::kSum;
  // Churn: `churn_fraction` of the devices (spread evenly over the index
  // order) switch off `churn_at_ms` after the fleet started, or each after
  // its `churn_after_uploads`-th accepted upload when that is > 0 (their
  // DTLS session dropped without a word, as a device that loses power or
  // network), and come back `churn_away_ms` later as after a reboot: the
  // client restarted from its persisted record (a pending upload resent).
  // Once per device; 0: no churn.
  double churn_fraction = 0;
  uint32_t churn_at_ms = 0;
  uint32_t churn_after_uploads = 0;
  uint32_t churn_away_ms = 0;
  // The progress line's interval, and a process (the daemon) whose memory
  // and CPU it reports (fleet_progress.h); 0: none.
  uint32_t progress_ms = 10000;
  int watch_pid = 0;
  // Secure-aggregation rounds (DeviceClientConfig::secagg_max_neighbours;
  // each device's memory grows by the SDK's SecAggMemoryBytes(dim, k)): at
  // most k graph neighbours in a round. 0: off (a task with a plan is
  // refused).
  size_t secagg_neighbours = 0;
  // DeviceClientConfig::secagg_poll_ms: an open phase's resend interval.
  uint32_t secagg_poll_ms = DeviceClient::kSecureRoundPollMs;
};

// The devices' counters summed, and the run's shape.
struct DaemonFleetReport : FleetCounters {
  size_t devices = 0;
  size_t done = 0;          // devices that saw the end of the job
  size_t churned = 0;       // devices that left and came back (churn)
  uint64_t handshakes = 0;  // DTLS handshakes completed, reconnections too
  posix::SessionEnds session_ends;  // why sessions ended (session_ends.h)
  // CoAP bodies sent and received by all devices (byte_count_transport.h).
  uint64_t bytes_up = 0;
  uint64_t bytes_down = 0;
  double seconds = 0;
};

// Runs the devices until every one has seen the end of the job (ROLE_DONE)
// or `*stop` becomes non-zero (a signal). INVALID_ARGUMENT for a bad config
// (part >= parts, no device in the part with device_prefix,
// start_per_second < 0, a local_address range this host cannot bind, a
// churn fraction outside [0, 1], shard_sizes that are not one positive size
// per device within the records) or more
// devices than records; NOT_FOUND / DATA_LOSS for the data or PSK
// files; UNAVAILABLE if libcoap has no DTLS or a state dir cannot be opened.
// The message says what failed. A progress line goes to `progress` (may be
// null) every `progress_seconds`.
host::ErrorOr<DaemonFleetReport> RunDaemonFleet(
    const DaemonFleetConfig& config, volatile std::sig_atomic_t* stop,
    std::FILE* progress);

}  // namespace edgeadmm::fleet
