// `edgeadmm-fleet connect`: the enrolled devices of a PSK directory, each a
// DeviceClient over real CoAP/DTLS-PSK, against a running aggregator daemon.
//   edgeadmm-fleet connect --port 5684 --psk-dir DIR --data a9a.xz --dim 123
//       [--host 127.0.0.1] [--local-address 127.0.0.2]
//       [--state-dir DIR] [--epsilon-budget E]
//       [--loss logistic|squared]   (squared: real-valued LIBSVM labels)
//       [--format libsvm|adult-csv] [--normalize none|unit|max]
//       [--allow-unaccounted-steps] (devices run steps without noise of their
//                                   own: non-private references and
//                                   trusted-aggregator jobs)
//       [--shard-sizes B1,B2,...]   (device i holds the i-th run of Bi
//                                   records; default: an even split)
//       [--part I/K]                (this process runs devices i % K == I)
//       [--device-prefix P]         (and of those the ids beginning P)
//       [--start-rate R]            (at most R device starts per second)
//       [--max-starting N]          (at most N devices in their first
//                                   handshake at a time)
//       [--task-refresh-ms T]       (re-register Observe, on a new DTLS
//                                   session, after T ms without a
//                                   notification)
//       [--task-refresh-max-ms M]   (the longest the refresh wait grows
//                                   to: doubled by quiet refreshes, at
//                                   least twice the notification gap)
//       [--silence-timeout-ms S]    (fail an exchange after S ms without a
//                                   datagram of the daemon; 0: off)
//       [--pp-eta1 E[,E...]] [--pp-eta-growth Q1[,...]] [--pp-eta-max M[,...]]
//       [--pp-alpha1 A[,...]] [--pp-alpha-growth Q2[,...]]
//       [--unsafe-paired-seed HEX] (benchmarks only, UNSAFE: every device's
//                                   noise in round r from HMAC-SHA-256(HEX,
//                                   id, r); tools/fleet/.../paired_seed.h)
//       [--pp-max-loss P[,...]]   (refuse a job whose ε_i(T) exceeds P)
//       [--secagg-neighbours K] (join secure-aggregation rounds of at
//                                   most K neighbours; [--secagg-poll-ms
//                                   P]: an open phase's resend interval)
//                                   (pp-admm: the devices' private schedules
//                                   eta_i(t) = min(eta1 q1^(t-1), max),
//                                   alpha_i(t) = alpha1 q2^(t-1); one value
//                                   for all devices or one per device in PSK
//                                   file order = the job's node order)
// Runs until every device has seen the end of the job, or SIGTERM / SIGINT.
#include <csignal>
#include <cstdio>
#include <map>
#include <string>

#include "edgeadmm/dataio/data_options.h"
#include "edgeadmm/fleet/daemon_fleet.h"
#include "edgeadmm/fleet/fleet_progress.h"
#include "edgeadmm/host/hex.h"
#include "fleet_commands.h"

namespace edgeadmm::fleet {
namespace {

using cli::AddDataOptions;
using cli::DataOptions;
using cli::ResolveDataOptions;

volatile std::sig_atomic_t g_stop = 0;

void OnSignal(int) { g_stop = 1; }

// How the records are split among the devices (uneven shards, or column
// blocks for admm-sharing) and what they keep beside (test blocks, float16
// shares, step histories).
void AddPartitionOptions(host::Command& cmd, DaemonFleetConfig& c) {
  cmd.AddOption("--shard-sizes", c.shard_sizes,
                "uneven record shards: device i (sorted PSK files) holds "
                "the i-th run of this many consecutive records, e.g. "
                "400,1200,452; one size per device (default: an even "
                "split of all records)")
      .Delimiter(',');
  cmd.AddOption("--column-blocks", c.column_blocks,
                "admm-sharing (vertical partition): device i (sorted PSK "
                "files) is party i and holds the i-th block of this many "
                "consecutive columns, e.g. 66,57; one block per device")
      .Delimiter(',');
  cmd.AddOption("--records", c.records,
                "with --column-blocks: every party holds the first N "
                "records (default: all)");
  cmd.AddOption("--test-data", c.test_data_path,
                "with --column-blocks: the admm-sharing job's test set "
                "(LIBSVM); every party also holds its column block of the "
                "first --test-records records and uploads their partial "
                "scores in the scoring phase");
  cmd.AddFlag("--share-float16", c.share_float16,
              "round every value of every upload (admm-sharing: the noisy "
              "share, the partial scores) to the nearest float16, "
              "saturated at +-65504, before it is sent; the bytes stay "
              "float32 (a measurement, docs/results.md)");
  cmd.AddOption("--history", c.history_dir,
                "after every local step, append each device's persisted "
                "model and ledger epsilon (at --delta) to DIR/<id>.tsv "
                "(per-round scoring by a harness)");
  cmd.AddOption("--test-records", c.test_records,
                "with --test-data: the job's admm_sharing.test_records");
}

// pp-admm's per-device penalty schedules (paper 001).
void AddPenaltyOptions(host::Command& cmd, DaemonFleetConfig& c) {
  const char* per_device =
      "; one value for every device, or a comma list with one per device "
      "in PSK file order (the job's node order); never sent";
  cmd.AddOption("--pp-eta1", c.penalty_options.eta1,
                std::string("pp-admm: penalty eta_i(1) > 0, >= the job's "
                            "theta (default 0.5)") +
                    per_device);
  cmd.AddOption("--pp-eta-growth", c.penalty_options.eta_growth,
                std::string("pp-admm: q1 >= 1, eta_i(t) = eta_i(1) "
                            "q1^(t-1) (default 1; a dvp job uses "
                            "eta = theta whatever the schedule)") +
                    per_device);
  cmd.AddOption(
      "--pp-eta-max", c.penalty_options.eta_max,
      std::string("pp-admm: cap on eta_i(t) (default 1e6)") + per_device);
  cmd.AddOption("--pp-alpha1", c.penalty_options.alpha1,
                std::string("pp-admm: noise alpha_i(1) > 0, density "
                            "exp(-alpha ||eps||) (default 3)") +
                    per_device);
  cmd.AddOption("--pp-alpha-growth", c.penalty_options.alpha_growth,
                std::string("pp-admm: q2 > 0, alpha_i(t) = alpha_i(1) "
                            "q2^(t-1) (default 1)") +
                    per_device);
  cmd.AddOption("--pp-max-loss", c.penalty_options.max_loss,
                std::string("pp-admm: a device refuses a job whose "
                            "epsilon_i(T) (at its delta, docs/privacy.md) "
                            "would exceed this cap (default: no cap)") +
                    per_device);
}

// The command itself: its options checked, the fleet run, its summary
// printed; exits 2 on a bad option, 1 when the fleet fails.
// The malicious devices of the steering measurement (steering_transport.h,
// docs/security.md "Influence across rounds").
void AddSteeringOptions(host::Command& cmd, DaemonFleetConfig& c) {
  host::CommandOption devices =
      cmd.AddOption("--steering-devices", c.steering_devices,
                    "the first N devices of this part (sorted PSK files) "
                    "are malicious: each update they send is the longest "
                    "step the gateway's rule allows along (1, ..., 1)/sqrt(p), "
                    "whatever their data (a measurement, docs/security.md)")
          .Excludes(cmd.Option("--share-float16"));
  cmd.AddOption("--steering-signal", c.steering_bound.signal,
                "the clip bound of an honest upload's signal the steering "
                "devices assume (prox-admm: 2*lambda*clip)")
      .Needs(devices)
      .Positive();
  cmd.AddOption("--steering-noise", c.steering_bound.noise_stddev,
                "the standard deviation of an honest upload's noise they "
                "assume (prox-admm: lambda*sigma)")
      .Needs(devices)
      .NonNegative();
  cmd.AddChoice("--steering-mode", c.steering_mode,
                {{"one-upload", SteeringMode::kOneUpload},
                 {"sum", SteeringMode::kSum}},
                "one-upload: 0.9999 x the one-upload bound every round; "
                "sum: keep their sum just within the bound on k uploads")
      .Needs(devices);
}

// --unsafe-paired-seed: paired benchmark runs (paired_seed.h).
void AddPairedSeedOption(host::Command& cmd, DaemonFleetConfig& c) {
  cmd.AddOptionCalling<std::string>(
         "--unsafe-paired-seed",
         [&c](const std::string& hex) {
           c.unsafe_paired_seed = *host::FromHex(hex);
         },
         "benchmarks only, UNSAFE (no privacy: whoever knows HEX knows "
         "every noise value): each device's DRBG in round r is seeded from "
         "HMAC-SHA-256(HEX, its id, r) instead of getrandom, so two runs "
         "with the same HEX (and sampling.seed) draw the same noise")
      .Check([](const std::string& hex) {
        const auto bytes = host::FromHex(hex);
        return bytes.ok() && bytes->size() >= 8
                   ? ""
                   : "expected at least 16 hexadecimal digits";
      });
}

// Churn and the progress line's load columns (the load benchmark).
// How devices notice a silent or restarted daemon: the Observe refresh and
// the transport's silence timeout (docs/device.md, "Refresh interval").
void AddSessionTimingOptions(host::Command& cmd, DaemonFleetConfig& c) {
  cmd.AddOption("--task-refresh-ms", c.task_refresh_ms,
                "a device re-registers its Observe of the task, on a new "
                "DTLS session, after this long without a notification (the "
                "daemon may have restarted; each registration costs the "
                "daemon a handshake and a scan of all observers), or "
                "after twice the gap between notifications or twice the "
                "daemon's task heartbeat if longer")
      .CaptureDefault()
      .InRange(100u, 86'400'000u);
  cmd.AddOption("--task-refresh-max-ms", c.task_refresh_max_ms,
                "the longest a device's refresh wait grows to: each "
                "refresh that no notification followed doubles it, and it "
                "is at least twice the gap between notifications and twice "
                "the daemon's task heartbeat (a late "
                "or restarted daemon is not re-handshaked by every device "
                "every interval)")
      .CaptureDefault()
      .InRange(100u, 86'400'000u);
  cmd.AddOption("--silence-timeout-ms", c.silence_timeout_ms,
                "an exchange that heard nothing from the daemon for this "
                "long fails and the device handshakes again (a restarted "
                "daemon drops the old session's records); raise it if the "
                "daemon lags behind by more at scale; 0: wait for the "
                "CoAP retransmissions")
      .CaptureDefault();
}

void AddLoadOptions(host::Command& cmd, DaemonFleetConfig& c) {
  cmd.AddOption("--churn", c.churn_fraction,
                "this fraction of the devices switches off at --churn-at-ms "
                "(session dropped without a word) and comes back "
                "--churn-away-ms later, restarted from its persisted "
                "record")
      .InRange(0.0, 1.0);
  cmd.AddOption("--churn-at-ms", c.churn_at_ms,
                "when the churning devices leave (ms after the start)");
  cmd.AddOption("--churn-after-uploads", c.churn_after_uploads,
                "instead of --churn-at-ms: each churning device leaves "
                "right after its K-th accepted upload");
  cmd.AddOption("--churn-away-ms", c.churn_away_ms, "how long they stay away");
  cmd.AddOption("--progress-ms", c.progress_ms,
                "a progress line every this many ms")
      .Positive()
      .CaptureDefault();
  cmd.AddOption("--watch-pid", c.watch_pid,
                "add this process's (the daemon's) resident memory and CPU "
                "use to the progress lines (/proc/PID)");
  host::CommandOption k = cmd.AddOption(
      "--secagg-neighbours", c.secagg_neighbours,
      "join secure-aggregation rounds whose masking graph gives a device at "
      "most K neighbours (the job's plan, `edgeadmm job create`); each "
      "device's memory grows by the SDK's SecAggMemoryBytes(dim, K)");
  k.Positive();
  cmd.AddOption("--secagg-poll-ms", c.secagg_poll_ms,
                "in a secure round, each device resends an open phase's "
                "message this often until the phase closes (the gateway "
                "sees devices / interval requests per second)")
      .Needs(k)
      .Positive()
      .CaptureDefault();
}

void RunConnect(DaemonFleetConfig& c, const DataOptions& data,
                const std::string& loss, const std::string& part) {
  ResolveDataOptions(data, "edgeadmm-fleet connect", &c.format,
                     &c.normalization);
  if (loss == "squared") {
    c.labels = LibsvmLabels::kReal;
  } else if (loss != "logistic") {
    std::fprintf(stderr,
                 "edgeadmm-fleet connect: --loss must be logistic or "
                 "squared\n");
    host::ExitCommandLine(2);
  }
  if (!c.job.empty()) c.storage_key = "job-" + c.job;
  if (!part.empty()) {
    unsigned long i = 0, k = 0;
    char tail = 0;
    if (std::sscanf(part.c_str(), "%lu/%lu%c", &i, &k, &tail) != 2 || k == 0 ||
        i >= k) {
      std::fprintf(stderr,
                   "edgeadmm-fleet connect: --part must be I/K with "
                   "0 <= I < K, got '%s'\n",
                   part.c_str());
      host::ExitCommandLine(2);
    }
    c.part = i;
    c.parts = k;
  }
  if (!c.unsafe_paired_seed.empty()) {
    std::fprintf(stderr,
                 "edgeadmm-fleet connect: WARNING: --unsafe-paired-seed: "
                 "UNSAFE, NO PRIVACY: every device's noise is a public "
                 "function of the seed, its id and the round; benchmarks "
                 "only, never with real data\n");
  }
  std::signal(SIGTERM, &OnSignal);
  std::signal(SIGINT, &OnSignal);
  auto r = RunDaemonFleet(c, &g_stop, stdout);
  if (!r.ok()) {
    std::fprintf(stderr, "edgeadmm-fleet connect: %s\n",
                 r.error().ToString().c_str());
    host::ExitCommandLine(1);
  }
  std::printf(
      "fleet: %zu devices, %zu saw the end of the job, %.1f s\n"
      "fleet: %llu steps computed, %llu refused; uploads %llu accepted, "
      "%llu duplicate, %llu stale, %llu rejected; %llu transport errors\n"
      "fleet: %llu handshakes, %zu devices churned\n"
      "fleet: CoAP bodies %llu bytes up, %llu bytes down\n",
      r->devices, r->done, r->seconds,
      static_cast<unsigned long long>(r->steps_computed),
      static_cast<unsigned long long>(r->steps_refused),
      static_cast<unsigned long long>(r->uploads_accepted),
      static_cast<unsigned long long>(r->uploads_duplicate),
      static_cast<unsigned long long>(r->uploads_stale),
      static_cast<unsigned long long>(r->uploads_rejected),
      static_cast<unsigned long long>(r->transport_errors),
      static_cast<unsigned long long>(r->handshakes), r->churned,
      static_cast<unsigned long long>(r->bytes_up),
      static_cast<unsigned long long>(r->bytes_down));
  std::printf("fleet: ");
  PrintSessionEnds(stdout, r->session_ends);
  std::printf("\n");
}

// "HOST:PORT" (the port after the last ':'); an empty host if malformed.
GatewayAddress ParseGateway(const std::string& text) {
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0) return {};
  const std::string port = text.substr(colon + 1);
  if (port.empty() || port.size() > 5 ||
      port.find_first_not_of("0123456789") != std::string::npos ||
      std::stoul(port) > 65535 || std::stoul(port) == 0) {
    return {};
  }
  return {text.substr(0, colon), static_cast<uint16_t>(std::stoul(port))};
}

}  // namespace

void AddConnectCommand(host::Command& app) {
  static DaemonFleetConfig c;
  static DataOptions data;
  static std::string loss = "logistic";
  host::Command cmd = app.AddSubcommand(
      "connect",
      "Run the enrolled devices (PSK files) against the aggregator daemon "
      "over CoAP/DTLS-PSK");
  cmd.AddOption("--host", c.host, "numeric daemon address").CaptureDefault();
  cmd.AddOption("--port", c.port, "daemon DTLS port").Required();
  cmd.AddOptionCalling<std::vector<std::string>>(
         "--gateway",
         [](const std::vector<std::string>& all) {
           for (const std::string& g : all) {
             c.more_gateways.push_back(ParseGateway(g));
           }
         },
         "HOST:PORT of a further gateway of the deployment (repeatable): a "
         "device whose gateway stays silent for its refresh wait moves to "
         "the next, --host:--port first, then these in order")
      .Check([](const std::string& g) {
        return ParseGateway(g).host.empty() ? "expected NUMERIC-HOST:PORT" : "";
      });
  cmd.AddFlag("--spread-gateways", c.spread_gateways,
              "with --gateway: device i starts on gateway i mod their "
              "number (--host:--port being gateway 0)");
  cmd.AddOption("--local-address", c.local_address,
                "numeric source address of the device sessions, each on "
                "its own port (e.g. 127.0.0.2; one per fleet process "
                "beyond ~28,000 devices: one address has only the "
                "ephemeral port range); default: the kernel picks");
  cmd.AddOption("--local-addresses", c.local_addresses,
                "with --local-address (IPv4): spread this process's "
                "devices over this many consecutive addresses from it, "
                "device j on the (j % K)-th (all of 127/8 is loopback on "
                "Linux)")
      .Positive();
  AddLoadOptions(cmd, c);
  cmd.AddOption("--psk-dir", c.psk_dir,
                "one hex PSK file per device, named after its id")
      .Required();
  cmd.AddOption("--data", c.data_path, "LIBSVM or Adult CSV (.xz ok)")
      .Required();
  AddDataOptions(cmd, &data);
  cmd.AddOption("--dim", c.dim, "LIBSVM dimension").CaptureDefault();
  cmd.AddOption("--loss", loss,
                "the job's loss: logistic (labels +1/-1) or squared "
                "(real-valued LIBSVM labels)")
      .CaptureDefault();
  cmd.AddOption("--state-dir", c.state_dir,
                "per-device state directories (default: RAM)");
  cmd.AddOption("--job", c.job,
                "the job every device serves (its task v1/task/NAME; its "
                "record stored as job-NAME); default: the gateway picks");
  cmd.AddOption("--epsilon-budget", c.epsilon_budget,
                "local epsilon budget of every device (default inf: no limit, "
                "the epsilon spent is still reported)");
  cmd.AddOption("--delta", c.delta, "delta of the local budget");
  AddPartitionOptions(cmd, c);
  static std::string part;
  cmd.AddOption("--part", part,
                "I/K: run only the devices whose index (sorted PSK file "
                "names) is I modulo K, with their own data shards; K "
                "processes I = 0..K-1 run the whole fleet");
  cmd.AddOption("--device-prefix", c.device_prefix,
                "run only the devices whose id begins with this (e.g. a "
                "job's job.device_prefix), each still with the data shard "
                "of its index among all PSK files");
  cmd.AddOption("--start-rate", c.start_per_second,
                "start at most this many devices per second (first "
                "handshakes), 0: all at once");
  cmd.AddOption("--max-starting", c.max_starting,
                "at most this many started devices still in their first "
                "DTLS handshake; the next starts when one completes "
                "(0: no limit)")
      .CaptureDefault();
  AddSessionTimingOptions(cmd, c);
  AddPenaltyOptions(cmd, c);
  AddSteeringOptions(cmd, c);
  AddPairedSeedOption(cmd, c);
  cmd.AddFlag("--allow-unaccounted-steps", c.allow_unaccounted_steps,
              "let devices run steps without noise of their own, with no "
              "local guarantee: needed for trusted-aggregator jobs (the "
              "server adds the noise) and non-private reference runs "
              "(sigma = 0, dp_admm.noise = false); "
              "without it such steps are refused");
  cmd.OnRun([] { RunConnect(c, data, loss, part); });
}

}  // namespace edgeadmm::fleet
