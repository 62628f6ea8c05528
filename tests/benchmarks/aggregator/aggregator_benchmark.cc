// Aggregator benchmarks, printed side by side in one run (ours vs the
// library's limit; docs/aggregator.md, "Benchmark"):
//  1. round bookkeeping (acceptance checks, one SQLite transaction with the
//     uploads, model and ledgers, fsync) vs summing the same vectors in
//     memory; n = 1000, m = 100, p = 123;
//  2. the release delay of a trusted-aggregator round after its deadline
//     against its number of uploads (a timing side channel on the cohort
//     size, docs/privacy.md "trusted-aggregator");
//  3. how long a round commits after its last upload against its number
//     of uploads, up to a9a's 32,561 (issue 36's goal: <= 5 s);
//  4. accepted updates per second over DTLS-PSK on loopback (daemon in a
//     child process, 50 devices, sequential POSTs) vs responses per second
//     of a bare libcoap server (coap-server-openssl) to POSTs of the same
//     size, in the same run.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "daemon_process.h"
#include "edgeadmm/jobs/job_store.h"
#include "edgeadmm/posix/coap_dtls_transport.h"
#include "edgeadmm/rounds/round_engine.h"
#include "edgeadmm/rounds/upload_sums.h"
#include "edgeadmm/store/blob.h"
#include "edgeadmm/store/group_commit.h"
#include "edgeadmm/store/write_batch.h"
#include "edgeadmm/wire/protocol.h"
#include "edgeadmm/wire/round_task.h"
#include "edgeadmm/wire/update.h"
#include "test_database.h"
#include "wire_bodies.h"

namespace edgeadmm {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

constexpr int kDimension = 123;

std::string JobToml(int rounds, int m, int dimension) {
  std::string toml = testing::JobToml(
      "bench", "prox-admm",
      "[privacy]\nclip = 1.0\nsigma = 1.0\ndelta = 1e-5\n"
      "central_budget = inf\naudit = true\ndevice_budget = inf\n",
      "[sampling]\nscheme = \"fixed\"\nm = " + std::to_string(m) +
          "\nm_min = 1\ndeadline_seconds = 600\n");
  toml.replace(toml.find("rounds = 5"), 10,
               "rounds = " + std::to_string(rounds));
  toml.replace(toml.find("dimension = 3"), 13,
               "dimension = " + std::to_string(dimension));
  return toml;
}

std::vector<double> Vector(int seed) {
  std::vector<double> v(kDimension);
  for (int j = 0; j < kDimension; ++j) v[j] = ((seed * 31 + j) % 17) / 64.0;
  return v;
}

// The timed part of the bookkeeping benchmark: `rounds` rounds of `e`, each
// opened, fed one upload per cohort member and committed. Not inlined so that
// `valgrind --tool=callgrind --toggle-collect='*BookkeepingRounds*'` counts
// the rounds without the setup (1000 enrolments, job creation).
// `group` > 0: the uploads are accepted in groups of that many, each one
// store::GroupCommit ended by its Sync (the daemon's group commit, one
// fsync per I/O pass), `db` being the engine's database; `batched`: each
// group also one store::WriteBatch, committed before the Sync (the daemon's
// write batch, one SQLite transaction per I/O pass).
__attribute__((noinline)) bool BookkeepingRounds(
    rounds::RoundEngine& e, store::Database& db, int64_t job, int rounds,
    int cohort, int group, bool batched, double* engine_seconds,
    double* sum_seconds, double* accept_seconds) {
  double sink = 0;
  for (int k = 0; k < rounds; ++k) {
    const Clock::time_point open_start = Clock::now();
    if (!e.Advance(0).ok() || !e.round_open()) return false;
    *engine_seconds += Seconds(open_start, Clock::now());
    std::vector<rounds::Upload> uploads;
    std::vector<std::vector<double>> vectors;
    int i = 0;
    for (const std::string& d : e.CohortForTesting()) {
      vectors.push_back(Vector(k * cohort + i++));
      uploads.push_back(
          {d, job, e.round_id(), store::EncodeFloats(vectors.back()), {}});
    }
    const Clock::time_point a = Clock::now();
    std::optional<store::GroupCommit> pass;
    std::optional<store::WriteBatch> batch;
    for (size_t u = 0; u < uploads.size(); ++u) {
      if (group > 0 && u % static_cast<size_t>(group) == 0) {
        pass.emplace(db);
        if (batched) batch.emplace(db);
      }
      if (e.Submit(uploads[u].device_id, uploads[u], 0) !=
          rounds::UploadVerdict::kAccepted) {
        std::printf("bookkeeping: unexpected verdict\n");
        return false;
      }
      const bool group_ends =
          group > 0 && (u + 1 == uploads.size() || (u + 1) % group == 0);
      if (group_ends) {
        if (batch && !batch->Commit().ok()) return false;
        batch.reset();
        if (!pass->Sync().ok()) return false;
        pass.reset();
      }
    }
    const Clock::time_point b = Clock::now();
    *accept_seconds += Seconds(a, b);
    std::vector<double> sum(kDimension, 0.0);
    for (const std::vector<double>& v : vectors) {
      for (int j = 0; j < kDimension; ++j) sum[j] += v[j];
    }
    const Clock::time_point c = Clock::now();
    sink += sum[0];
    *engine_seconds += Seconds(a, b);
    *sum_seconds += Seconds(b, c);
  }
  return sink >= 0;  // keeps the sum from being optimized away
}

// The sum rule's share of an upload's acceptance (docs/security.md,
// "Influence across rounds"): the read of the device's sum and the check,
// for every enrolled device of the job after its rounds, against
// `accept_us`, the measured acceptance time per upload.
void SumRuleCost(store::Database& db, int64_t job, int devices,
                 double accept_us) {
  rounds::UploadSums sums(db, job);
  const host::UploadBound bound{1.0, 0.5};  // the job's 2λC and λσ
  const std::vector<double> upload = Vector(7);
  int within = 0;
  const Clock::time_point a = Clock::now();
  for (int i = 0; i < devices; ++i) {
    char id[16];
    std::snprintf(id, sizeof(id), "dev-%03d", i);
    auto sum = sums.Of(id);
    if (!sum.ok()) return;
    within += rounds::KeepsSumWithinBound(bound, *sum, upload) ? 1 : 0;
  }
  const double us = 1e6 * Seconds(a, Clock::now()) / devices;
  std::printf(
      "sum rule: %.2f us per upload (read the device's sum, check; %d of %d "
      "within), %.1f%% of the %.1f us acceptance\n",
      us, within, devices, 100 * us / accept_us, accept_us);
}

// `synchronous`: FULL (the daemon's setting: a commit survives a power cut)
// or NORMAL (WAL without fsync per commit), to show what the fsync costs:
// one per accepted upload (its durable receipt) and one per round commit;
// `group` > 0: FULL with the uploads accepted in group commits of that
// many (one fsync each: what the daemon does per I/O pass); `batched`:
// each group also one write batch (one SQLite transaction).
void BookkeepingBenchmark(const char* synchronous, int group = 0,
                          bool batched = false) {
  constexpr int kDevices = 1000;
  constexpr int kCohort = 100;
  constexpr int kRounds = 30;
  testing::TempDatabase t;
  testing::EnrollDevices(t.db(), kDevices);
  if (!t.db().Exec(std::string("PRAGMA synchronous=") + synchronous).ok()) {
    return;
  }
  const int64_t job =
      testing::CreateJobOrDie(t.db(), JobToml(kRounds, kCohort, kDimension));
  if (!jobs::SetJobState(t.db(), job, jobs::JobState::kRunning).ok()) return;
  rounds::PrivacyRoundAccountant accountant;
  auto opened = rounds::RoundEngine::Open(t.db(), job, accountant);
  if (!opened.ok()) return;
  double engine_seconds = 0;
  double sum_seconds = 0;
  double accept_seconds = 0;
  if (!BookkeepingRounds(**opened, t.db(), job, kRounds, kCohort, group,
                         batched, &engine_seconds, &sum_seconds,
                         &accept_seconds)) {
    return;
  }
  std::printf(
      "bookkeeping (synchronous=%s, group commit of %d%s): n=%d m=%d p=%d, "
      "%d rounds: engine "
      "%.3f ms/round (open incl. budget check + acceptance + commit), "
      "in-memory sum %.4f ms/round, "
      "ratio %.1fx (goal <= 2x); acceptance %.1f us per upload (its "
      "transaction; the last one's Submit also commits the round)\n",
      synchronous, group, batched ? " in one write batch" : "", kDevices,
      kCohort, kDimension, kRounds, 1e3 * engine_seconds / kRounds,
      1e3 * sum_seconds / kRounds, engine_seconds / sum_seconds,
      1e6 * accept_seconds / (kRounds * kCohort));
  SumRuleCost(t.db(), job, kDevices,
              1e6 * accept_seconds / (kRounds * kCohort));
}

// How long a trusted-aggregator round takes to release after its deadline
// (Advance at the deadline: sum, noise, the commit's transaction) with m
// accepted uploads, for several m: the delay an observer who times the
// release against the known deadline sees. Best of 3 per m.
void ReleaseDelayBenchmark() {
  constexpr int kSizes[] = {10, 300, 3000};
  double delay_ms[3] = {0, 0, 0};
  for (int s = 0; s < 3; ++s) {
    const int m = kSizes[s];
    testing::TempDatabase t;
    testing::EnrollDevices(t.db(), m);
    std::string toml = testing::JobToml(
        "release", "prox-admm",
        testing::PrivacyTableWithPolicy("trusted-aggregator"),
        "[sampling]\nscheme = \"poisson\"\nq = 1.0\nm_min = 0\n"
        "deadline_seconds = 10\n");
    toml.replace(toml.find("dimension = 3"), 13,
                 "dimension = " + std::to_string(kDimension));
    const int64_t job = testing::CreateJobOrDie(t.db(), toml);
    if (!jobs::SetJobState(t.db(), job, jobs::JobState::kRunning).ok()) return;
    rounds::PrivacyRoundAccountant accountant;
    auto opened = rounds::RoundEngine::Open(t.db(), job, accountant);
    if (!opened.ok()) return;
    rounds::RoundEngine& e = **opened;
    double best = 1e9;
    int64_t now = 0;
    for (int k = 0; k < 3; ++k) {
      if (!e.Advance(now).ok() || !e.round_open()) return;
      int i = 0;
      for (const std::string& d : e.CohortForTesting()) {
        // Within the noiseless uploads' norm bound (2λC = 2).
        std::vector<double> v = Vector(k * m + i++);
        for (double& x : v) x *= 0.1;
        const rounds::Upload u{
            d, job, e.round_id(), store::EncodeFloats(v), {}};
        const rounds::UploadVerdict verdict = e.Submit(d, u, now);
        if (verdict != rounds::UploadVerdict::kAccepted) {
          std::printf("release delay: verdict %d for %s\n",
                      static_cast<int>(verdict), d.c_str());
          return;
        }
      }
      now = e.deadline_ms();
      const Clock::time_point a = Clock::now();
      if (!e.Advance(now).ok()) return;
      best = std::min(best, 1e3 * Seconds(a, Clock::now()));
    }
    delay_ms[s] = best;
  }
  std::printf(
      "release delay after the deadline (trusted-aggregator, p=%d, "
      "synchronous=FULL): m=%d %.2f ms, m=%d %.2f ms, m=%d %.2f ms; "
      "%.2f us per upload\n",
      kDimension, kSizes[0], delay_ms[0], kSizes[1], delay_ms[1], kSizes[2],
      delay_ms[2], 1e3 * (delay_ms[2] - delay_ms[0]) / (kSizes[2] - kSizes[0]));
}

// How long a round of m uploads takes to commit after its last upload
// arrives (issue 36's goal: <= 5 s at m = 32,561): a prox-admm job whose
// fixed cohort is every one of m enrolled devices, the uploads accepted in
// group commits of 256 as the daemon's I/O passes do, then timed as the
// daemon runs it (set_close_in_advance): the last upload's Submit (its own
// fsynced transaction), then the Advance that closes the complete round
// (z-update, model, ledgers, the devices' sums, one transaction) and opens
// the next (its cohort and budget check: the job has a third round, so
// both timed rounds open one; a job's last round opens none, about 200 ms
// less at m = 32,561). Best of 2 rounds per m; the second round's
// acceptance per upload beside it.
bool CommitDelay(int m, double* commit_ms, double* accept_us) {
  constexpr int kGroup = 256;
  testing::TempDatabase t;
  // Enrolment is setup: no fsync per device.
  if (!t.db().Exec("PRAGMA synchronous=OFF").ok()) return false;
  testing::EnrollDevices(t.db(), m);
  if (!t.db().Exec("PRAGMA synchronous=FULL").ok()) return false;
  const int64_t job =
      testing::CreateJobOrDie(t.db(), JobToml(3, m, kDimension));
  if (!jobs::SetJobState(t.db(), job, jobs::JobState::kRunning).ok()) {
    return false;
  }
  rounds::PrivacyRoundAccountant accountant;
  auto opened = rounds::RoundEngine::Open(t.db(), job, accountant);
  if (!opened.ok()) return false;
  rounds::RoundEngine& e = **opened;
  e.set_close_in_advance(true);
  *commit_ms = 1e12;
  for (int k = 0; k < 2; ++k) {
    if (!e.round_open() && (!e.Advance(0).ok() || !e.round_open())) {
      return false;
    }
    const int64_t round = e.round_id();
    std::vector<rounds::Upload> uploads;
    int i = 0;
    for (const std::string& d : e.CohortForTesting()) {
      uploads.push_back(
          {d, job, e.round_id(), store::EncodeFloats(Vector(k * m + i++)), {}});
    }
    const auto submit = [&](const rounds::Upload& u) {
      const rounds::UploadVerdict verdict = e.Submit(u.device_id, u, 0);
      if (verdict == rounds::UploadVerdict::kAccepted) return true;
      std::printf("commit delay: verdict %d for %s\n",
                  static_cast<int>(verdict), u.device_id.c_str());
      return false;
    };
    const Clock::time_point a = Clock::now();
    std::optional<store::GroupCommit> pass;
    for (size_t u = 0; u + 1 < uploads.size(); ++u) {
      if (u % kGroup == 0) pass.emplace(t.db());
      if (!submit(uploads[u])) return false;
      if ((u + 1) % kGroup == 0 || u + 2 == uploads.size()) {
        if (!pass->Sync().ok()) return false;
        pass.reset();
      }
    }
    const Clock::time_point b = Clock::now();
    if (!submit(uploads.back()) || !e.round_complete() || !e.Advance(0).ok() ||
        (e.round_open() && e.round_id() == round)) {
      return false;
    }
    const Clock::time_point c = Clock::now();
    *commit_ms = std::min(*commit_ms, 1e3 * Seconds(b, c));
    *accept_us = 1e6 * Seconds(a, b) / static_cast<double>(m - 1);
  }
  return true;
}

// `sizes`: the cohort sizes, e.g. {100, 1000, 32561}.
bool CommitDelayBenchmark(const std::vector<int>& sizes) {
  constexpr double kGoalMs = 5000;
  for (const int m : sizes) {
    double commit_ms = 0;
    double accept_us = 0;
    if (m < 2 || !CommitDelay(m, &commit_ms, &accept_us)) {
      std::printf("commit delay: m=%d failed\n", m);
      return false;
    }
    std::printf(
        "commit delay after the last upload (prox-admm, p=%d, "
        "synchronous=FULL): m=%d %.1f ms (%.2f us per upload; goal %.0f ms, "
        "ratio %.3f), acceptance %.1f us per upload in group commits of "
        "256\n",
        kDimension, m, commit_ms, 1e3 * commit_ms / m, kGoalMs,
        commit_ms / kGoalMs, accept_us);
    std::fflush(stdout);
  }
  return true;
}

// Sequential POSTs of `bodies` from `devices`; returns requests/s. Counts
// into `*ok_count` the responses with code `ok_code` (any code if 0); a
// request without a response (e.g. ICMP port unreachable) counts nowhere.
double PostRate(std::vector<std::unique_ptr<posix::CoapDtlsTransport>>& devs,
                const std::vector<std::vector<uint8_t>>& bodies,
                const char* path, int* ok_count, uint8_t ok_code = 0x44) {
  std::vector<std::byte> reply(512);
  const Clock::time_point a = Clock::now();
  for (size_t i = 0; i < devs.size(); ++i) {
    TransportRequest request;
    request.method = CoapMethod::kPost;
    request.path = path;
    request.content_format = wire::kUpdateFormat;
    request.payload = ConstByteSpan(
        reinterpret_cast<const std::byte*>(bodies[i].data()), bodies[i].size());
    TransportResult result;
    if (devs[i]
            ->Request(request, ByteSpan(reply.data(), reply.size()), 5000,
                      result)
            .ok() &&
        (ok_code == 0 || result.code == ok_code)) {
      ++*ok_count;
    }
  }
  return static_cast<double>(devs.size()) / Seconds(a, Clock::now());
}

// Starts coap-server-openssl with PSK `key`; returns its pid (0 on failure)
// and its coaps port. Retries on other ports: it listens on port and port+1,
// and a client that talks to port+1 before it is bound (or while another
// socket holds it) gets ICMP errors and stays failed.
pid_t StartBareServer(const char* key, unsigned* coaps_port) {
  for (int attempt = 0; attempt < 5; ++attempt) {
    const unsigned base = testing::FreeUdpPort();
    if (!testing::UdpPortFree(base + 1)) continue;
    const pid_t pid = fork();
    if (pid == 0) {
      const std::string port = std::to_string(base);
      execlp("coap-server-openssl", "coap-server-openssl", "-A", "127.0.0.1",
             "-p", port.c_str(), "-k", key, "-v", "0", nullptr);
      _exit(127);
    }
    for (int waited = 0; waited < 5000; waited += 20) {
      if (waitpid(pid, nullptr, WNOHANG) == pid) break;  // it gave up
      if (!testing::UdpPortFree(base + 1)) {
        *coaps_port = base + 1;
        return pid;
      }
      usleep(20'000);
    }
    kill(pid, SIGTERM);
    waitpid(pid, nullptr, 0);
  }
  return 0;
}

std::vector<uint8_t> UpdateBody(const std::string& id, uint64_t job,
                                uint64_t round) {
  return testing::EncodeUpdateBody(id, job, round,
                                   Vector(static_cast<int>(round)));
}

// Both servers run side by side and are timed round by round, alternately,
// so that the other load on the machine weighs on both alike.
void DtlsBenchmark() {
  constexpr int kDevices = 50;
  constexpr int kRounds = 20;
  static const char kKey[] = "edgeadmm-bench-psk";  // ASCII: coap-server -k
  testing::TempDatabase t;
  const std::vector<std::string> ids = testing::EnrollDevices(t.db(), kDevices);
  if (!t.db()
           .Exec(std::string("UPDATE devices SET psk = CAST('") + kKey +
                 "' AS BLOB)")
           .ok()) {
    return;
  }
  const int64_t job =
      testing::CreateJobOrDie(t.db(), JobToml(kRounds, kDevices, kDimension));
  if (!jobs::SetJobState(t.db(), job, jobs::JobState::kRunning).ok()) return;
  const std::string config = t.dir() + "/d.toml";
  std::ofstream(config) << "[store]\ndatabase = \"" << t.path()
                        << "\"\n[server]\naddress = \"127.0.0.1\"\nport = "
                        << testing::FreeUdpPort() << "\n";
  testing::DaemonProcess daemon(EDGEADMM_DAEMON_PATH,
                                {"--config", config, "--db", t.path()});
  if (!daemon.started()) {
    std::printf("dtls: daemon did not start\n");
    return;
  }
  // The bare libcoap server: coap-server-openssl with the same key, POSTs of
  // the same size to a resource it answers with an error code at once.
  unsigned bare_port = 0;
  const pid_t pid = StartBareServer(kKey, &bare_port);
  if (pid == 0) {
    std::printf("dtls: coap-server-openssl did not start\n");
    return;
  }
  posix::CoapClientContext context;
  posix::CoapClientContext bare_context;
  std::vector<posix::CoapDtlsConfig> configs(kDevices);
  std::vector<posix::CoapDtlsConfig> bare_configs(kDevices);
  std::vector<std::unique_ptr<posix::CoapDtlsTransport>> devices;
  std::vector<std::unique_ptr<posix::CoapDtlsTransport>> bare;
  for (int i = 0; i < kDevices; ++i) {
    configs[i].host = "127.0.0.1";
    configs[i].port = static_cast<uint16_t>(daemon.port());
    configs[i].identity = ids[i].c_str();
    configs[i].key = ConstByteSpan(reinterpret_cast<const std::byte*>(kKey),
                                   sizeof(kKey) - 1);
    devices.push_back(
        std::make_unique<posix::CoapDtlsTransport>(context, configs[i]));
    bare_configs[i] = configs[i];
    bare_configs[i].port = static_cast<uint16_t>(bare_port);
    bare.push_back(std::make_unique<posix::CoapDtlsTransport>(bare_context,
                                                              bare_configs[i]));
  }
  // Handshakes first (not timed): one GET v1/status each, one POST each to
  // the bare server.
  std::vector<std::byte> reply(2048);
  for (auto& d : devices) {
    TransportRequest get;
    get.path = wire::kStatusPath;
    TransportResult result;
    d->Request(get, ByteSpan(reply.data(), reply.size()), 5000, result)
        .IgnoreError();
  }
  std::vector<std::vector<uint8_t>> bare_bodies;
  for (int i = 0; i < kDevices; ++i) {
    bare_bodies.push_back(UpdateBody(ids[i], 1, 1));
  }
  // Earlier runs of this benchmark sometimes timed the ICMP errors of a
  // server not yet listening as "responses"; only answers count now.
  int warm = 0;
  PostRate(bare, bare_bodies, "bench", &warm, 0);
  double aggregator_time = 0;
  double bare_time = 0;
  int accepted = 0;
  int answered = 0;
  int sent = 0;
  std::vector<double> round_ratios;  // per round: less sensitive to bursts
  for (int k = 1; k <= kRounds; ++k) {
    // Every device is in the cohort (m = n); round ids start at 1.
    std::vector<std::vector<uint8_t>> bodies;
    for (int i = 0; i < kDevices; ++i) {
      bodies.push_back(UpdateBody(ids[i], static_cast<uint64_t>(job),
                                  static_cast<uint64_t>(k)));
    }
    // The same pause before both timed rounds: both start from an idle
    // machine (a round right after another one runs faster).
    usleep(20'000);
    Clock::time_point a = Clock::now();
    PostRate(devices, bodies, wire::kUpdatePath, &accepted);
    const double ours_round = Seconds(a, Clock::now());
    sent += kDevices;
    // The daemon commits round k (after the last receipt, or inside it) and
    // opens round k + 1: let it finish before the bare round is timed, so
    // that it does not compete with it for the CPU.
    usleep(20'000);
    a = Clock::now();
    PostRate(bare, bare_bodies, "bench", &answered, 0);
    const double bare_round = Seconds(a, Clock::now());
    aggregator_time += ours_round;
    bare_time += bare_round;
    round_ratios.push_back(bare_round / ours_round);
  }
  devices.clear();
  bare.clear();
  daemon.Terminate();
  kill(pid, SIGTERM);
  waitpid(pid, nullptr, 0);
  const double ours = accepted / aggregator_time;
  const double baseline = answered / bare_time;
  if (answered < sent) {
    std::printf("dtls: the bare libcoap server answered %d of %d: no ratio\n",
                answered, sent);
    return;
  }
  std::sort(round_ratios.begin(), round_ratios.end());
  std::printf(
      "dtls: %d of %d updates accepted (p=%d, %zu-byte bodies), %.0f "
      "accepted/s vs bare libcoap %.0f responses/s (sequential, loopback, "
      "rounds alternating): ratio %.2f, median of the %zu round ratios %.2f "
      "(goal >= 0.5)\n",
      accepted, sent, kDimension, bare_bodies[0].size(), ours, baseline,
      ours / baseline, round_ratios.size(),
      round_ratios[round_ratios.size() / 2]);
}

}  // namespace
}  // namespace edgeadmm

// No argument: every benchmark. `bookkeeping`, `release` or `dtls`: only
// that one (e.g. under callgrind, where the DTLS part would only add noise).
int main(int argc, char** argv) {
  const std::string only = argc > 1 ? argv[1] : "";
  if (only.empty() || only == "bookkeeping") {
    edgeadmm::BookkeepingBenchmark("FULL");
    edgeadmm::BookkeepingBenchmark("FULL", 16);
    edgeadmm::BookkeepingBenchmark("FULL", 16, true);
    edgeadmm::BookkeepingBenchmark("FULL", 64);
    edgeadmm::BookkeepingBenchmark("FULL", 64, true);
    edgeadmm::BookkeepingBenchmark("NORMAL");
  }
  if (only.empty() || only == "release") edgeadmm::ReleaseDelayBenchmark();
  if (only.empty() || only == "commit") {
    std::vector<int> sizes{100, 1000, 32561};
    if (argc > 2) {
      sizes.clear();
      for (int i = 2; i < argc; ++i) sizes.push_back(std::atoi(argv[i]));
    }
    if (!edgeadmm::CommitDelayBenchmark(sizes)) return 1;
  }
  if (only.empty() || only == "dtls") edgeadmm::DtlsBenchmark();
  return 0;
}
