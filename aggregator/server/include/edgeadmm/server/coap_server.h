// CoapServer: the aggregator's libcoap3 (OpenSSL) DTLS-PSK server.
//
// One or more libcoap contexts (ServerOptions::shards), each with a DTLS
// endpoint on the same port. The PSK of a handshake is looked up per
// identity in the device registry; unknown or disabled devices get no key, so
// their handshake fails. Requests are answered by RequestHandler; the task
// resource is observable and notified whenever the round changes. The loop
// ticks the JobHost (the running job and its round engine) and the
// DtlsSessionJanitor (sessions to drop); the shards' I/O passes run on the
// loop's thread or on ServerOptions::threads, the server's own state under
// one lock.
#pragma once

#include <csignal>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "edgeadmm/result.h"
#include "edgeadmm/rounds/round_accountant.h"
#include "edgeadmm/rounds/round_engine.h"
#include "edgeadmm/server/handshake_admission.h"
#include "edgeadmm/server/job_host.h"
#include "edgeadmm/server/metrics_file_writer.h"
#include "edgeadmm/server/request_budget.h"
#include "edgeadmm/server/request_handler.h"
#include "edgeadmm/server/secagg_rounds.h"
#include "edgeadmm/server/secure_round_driver.h"
#include "edgeadmm/server/task_notifier.h"
#include "edgeadmm/store/database.h"
#include "edgeadmm/store/group_commit.h"
#include "edgeadmm/store/write_batch.h"

namespace edgeadmm::server {

struct ServerOptions {
  std::string address = "::";  // listen address (IPv6 any also takes IPv4)
  uint16_t port = 5684;        // coaps default; 0 picks a free port
  unsigned session_timeout_seconds = 60;  // idle DTLS sessions are dropped
  // A DTLS session whose handshake has not completed this long after it
  // was created is dropped. libcoap keeps one session per peer address and
  // feeds every later datagram of that address to it, so a half-finished
  // handshake that the client gave up on (a lost flight) would swallow the
  // client's next ClientHello until the idle timeout. The default matches
  // the SDK transport's default handshake_timeout_ms; it must be at least
  // the devices' own, or handshakes they are still finishing are dropped
  // (server.handshake_timeout_ms).
  unsigned handshake_timeout_ms = 5000;
  // Sessions (established and in progress) at most; 0: no limit. Past it
  // a new handshake waits until a session ends (an established one only by
  // its idle timeout, never evicted for a newcomer).
  unsigned max_sessions = 0;
  // DTLS handshakes in progress at most, exactly (libcoap's own cap admits
  // one more); when full, a newcomer from a prefix with fewer takes the
  // place of the busiest prefix's oldest once it has stalled
  // (HandshakeAdmission). More than the daemon completes in about a second
  // outlive the devices' handshake timeout when a fleet returns at once
  // (docs/aggregator.md, "Handshakes in progress").
  unsigned max_handshakes = 256;
  // Datagrams read from the endpoint per I/O batch at most (adaptive, see
  // posix::CoapBatchedIo): libcoap walks every session once per batch, so
  // reading one datagram per walk made the cost per datagram grow with the
  // number of open sessions. 0: libcoap's own loop (coap_io_process).
  unsigned io_batch_reads = 128;
  // libcoap contexts ("shards") on the one port, each with its endpoint,
  // sessions and resources, run by the same loop (on `threads`). With more
  // than one, the endpoints share the port by SO_REUSEPORT (ReusePortBinds) and
  // the kernel spreads the devices over them by a hash of each datagram's
  // addresses and ports, so a device stays on its shard. libcoap 4.3.1
  // walks every session of an endpoint for each datagram from an unknown
  // address (each new handshake) and a resource's observer list for each
  // registration; K shards make those walks K times shorter
  // (docs/results.md, "One gateway under load"). 1: one context, no
  // SO_REUSEPORT.
  unsigned shards = 1;
  // Threads that run the shards' I/O passes (1..shards): shard i on thread
  // i % threads (posix::CoapShardSet), so a device's datagrams stay in
  // order on one session. libcoap's and OpenSSL's work per datagram runs in
  // parallel; the server's own state, the round engines and the store are
  // taken under one lock (CoapServer::Impl::state). 1: the calling thread.
  unsigned threads = 1;
  // Group commit: commits skip their own fsync (store::GroupCommit), and
  // each I/O pass and each tick ends with one fsync of the WAL; every
  // datagram they send, receipts among them, waits until that sync
  // succeeded (HeldSends) and is dropped if it failed (the devices ask
  // again). One fsync per pass instead of one per upload (docs/security.md,
  // "Group commit"). On PostgreSQL each commit is durable on its own.
  // false: each commit fsyncs, answers go at once.
  bool group_commit = true;
  // With group_commit: the requests of one I/O pass write in one SQLite
  // transaction (store::WriteBatch: each request's transaction is a
  // savepoint of it), committed once before the pass's fsync. If that
  // transaction is lost (its COMMIT failed: a full disk, an I/O error),
  // the server's memory followed writes the store no longer has: Run and
  // RunOnce return DATA_LOSS and the server must not be run again
  // (ServeUntilStopped then starts a new one, without write batches). The
  // engine's tick writes outside the batch, and retries a failed write in
  // place (docs/security.md, "Write batches").
  bool write_batch = true;
  // Datagrams a pass holds for its fsync before it fsyncs early and sends
  // them (HeldSendsLimits::max_datagrams; also at 8 MiB).
  size_t held_datagrams = 8192;
  // SecAgg+ rounds (of different jobs) served at once (SecAggRounds'
  // slots); a secure round beyond them waits for a free one.
  size_t max_secure_rounds = 4;
  // SO_RCVBUF of the endpoint sockets together (each shard's socket gets
  // its share; the kernel caps each at net.core.rmem_max); 0 keeps the
  // system default. All devices share these sockets, and a round start (every
  // device ACKs its notification and uploads at once) overflowed the default
  // ~208 KiB: dropped ACKs of confirmable notifications end observations
  // (libcoap gives up after one failed notification). 0: unchanged.
  unsigned receive_buffer_bytes = 8u << 20;
  // Every v1/task notification non-confirmable (libcoap's
  // COAP_RESOURCE_FLAGS_NOTIFY_NON_ALWAYS). By default libcoap sends every
  // fifth notification of an observer confirmable, and since all devices
  // observe the task from the start, the fifth round change is confirmable
  // for all of them at once: libcoap 4.3.1 inserts each into one
  // retransmission queue ordered by time (a walk of the queue per insert)
  // and scans the whole observer list for each ACK, so with 32,561 devices
  // that round start was O(n^2) and the daemon fell behind for good (full
  // receive queue, retransmissions, re-handshakes). The cost: a lost
  // notification is not retransmitted (the device re-registers after its
  // refresh interval), and observers that vanished are not detected by a
  // failed notification (their sessions stay until the daemon restarts).
  bool non_confirmable_notifications = false;
  // While a round is open, v1/task's observers are notified at least this
  // often even without a change (TaskNotifier; a device that hears nothing
  // for its refresh interval re-registers on a new DTLS session). 0: only
  // on changes.
  uint32_t task_heartbeat_ms = 10000;
  // A round's task tells its devices to spread their uploads (a secure
  // round's: their phase 0 requests) over this many microseconds per
  // expected cohort member (UploadSpreadMs; about 1e6 / this uploads a
  // second reach the gateway). 0: no spread.
  uint32_t upload_spread_us = 500;
  // The cookie exchange and per-source handshake rate in front of libcoap
  // (HandshakeAdmission, docs/security.md "Handshake floods").
  HandshakeAdmissionOptions admission;
  // Requests per device identity (RequestBudget, docs/security.md
  // "Budgets per peer").
  RequestBudgetOptions request_budget;
  // The gateway's metrics (GatewayMetrics) in the Prometheus text format,
  // rewritten every metrics_interval_ms and at shutdown (MetricsFile), by a
  // thread of its own (MetricsFileWriter); empty: none written.
  std::string metrics_file;
  unsigned metrics_interval_ms = 10000;
  // Under trusted-aggregator, each round's end becomes visible at its
  // deadline + this delay exactly (JobHost::set_release_delay_ms): above
  // the time a close takes at the largest cohort (`aggregator_benchmark
  // release`) plus the loop's wake-up (~110 ms). 0: no hold.
  unsigned release_delay_ms = 500;
  // This gateway's id (ValidGatewayId): with several daemons on one
  // PostgreSQL database, the daemon serves a job only while it holds the
  // job's CoordinatorLease under this id (JobHost::set_gateway_id). Empty:
  // no lease, the daemon serves the running job (one gateway).
  std::string gateway_id;
  // Each job's SecAgg+ round log is the file <this><job id>, from which a
  // restart resumes the round (SecureRoundDriver::set_log_prefix); the
  // daemon sets it beside an SQLite database. Empty: no log, a restart
  // aborts the open secure rounds.
  std::string secagg_log_prefix;
};

class CoapServer {
 public:
  // Opens the DTLS endpoint. UNAVAILABLE if libcoap lacks DTLS or the
  // address cannot be bound; INVALID_ARGUMENT for a bad address.
  static Result<std::unique_ptr<CoapServer>> Create(
      store::Database& db, const ServerOptions& options);
  ~CoapServer();
  CoapServer(const CoapServer&) = delete;
  CoapServer& operator=(const CoapServer&) = delete;

  // Serves until `*stop` becomes non-zero (set by a SIGTERM handler), then
  // closes every session. Store errors end the loop with their status.
  Status Run(const volatile std::sig_atomic_t* stop);
  // One loop iteration: network I/O for up to `timeout_ms`, then an engine
  // tick and job pickup.
  Status RunOnce(int timeout_ms);

  // The bound UDP port (useful with port 0).
  uint16_t port() const { return port_; }
  // The loaded job's engine, or null.
  rounds::RoundEngine* engine() { return jobs_.engine(); }
  // The SecAgg+ rounds served on v1/secagg/* (their phases close on this
  // server's ticks); secagg() is the first slot's.
  SecAggRounds& secagg_rounds() { return secagg_; }
  SecAggService& secagg() { return secagg_.slot(0); }
  const SecAggService& secagg() const { return secagg_.slot(0); }
  // The clock of requests and ticks in ms: round deadlines, secure
  // aggregation phases, receipts. The wall clock (WallClockMs) unless
  // set_clock replaced it (tests that close a phase only when they say;
  // JobHost's release hold keeps its own, JobHost::set_clock).
  int64_t NowMs() const { return clock_(); }
  void set_clock(std::function<int64_t()> clock) { clock_ = std::move(clock); }
  // Waits up to `timeout_ms` for the metrics submitted so far to be in the
  // file (tests that read it); true if so or if none is written.
  bool WaitMetricsWritten(int64_t timeout_ms);

 private:
  struct Impl;
  CoapServer(store::Database& db, const ServerOptions& options);
  Status Tick();
  // One I/O pass over the shards that are ready.
  Status RunShards(int timeout_ms);
  // Runs `step` (a pass or a tick) with the endpoints' datagrams held, then
  // fsyncs the WAL once for its commits and sends them, or drops them if
  // the fsync failed (group_commit; without it, just runs `step`).
  // `batched`: the step's transactions in one store::WriteBatch, committed
  // before the fsync; DATA_LOSS if it was lost (ServerOptions::write_batch).
  template <typename Step>
  Status Durably(Step&& step, bool batched);
  // Commits the pass's write batch so far and fsyncs the WAL, for the held
  // datagrams that would pass the hold's limits: false if it cannot (a
  // request's transaction is open, or the commit or the sync failed).
  bool MakeDurableSoFar();
  // At most one tick after another process disabled or removed a device:
  // its sessions are closed and it leaves the open round's cohort.
  size_t ApplyRevocations();
  // Whether a session established as `identity` with `key` may go on: the
  // device is enrolled, enabled and still has that key.
  bool SessionStillValid(std::string_view identity,
                         const std::vector<uint8_t>& key) const;
  // Notifies v1/task's observers when TaskNotifier says so.
  void NotifyTaskObservers();
  // Hands the metrics to metrics_writer_ when they are due (or `now` is
  // true).
  void WriteMetricsIfDue(int64_t now_ms, bool now);
  // Drops the handshakes HandshakeAdmission evicted for newcomers.
  size_t DropEvictedHandshakes();

  store::Database* db_;
  ServerOptions options_;
  std::unique_ptr<Impl> impl_;
  RequestHandler handler_{nullptr};
  SecAggRounds secagg_{options_.max_secure_rounds};
  SecureRoundDriver secure_rounds_{secagg_};
  JobHost jobs_{*db_, handler_};
  std::function<int64_t()> clock_ = WallClockMs;
  uint16_t port_ = 0;
  TaskNotifier task_notifier_{options_.task_heartbeat_ms};
  int64_t metrics_written_ms_ = 0;
  // Writes options_.metrics_file off the loop (null without one).
  std::unique_ptr<MetricsFileWriter> metrics_writer_;
  // Group commit (ServerOptions::group_commit; SQLite only): armed for the
  // server's lifetime, synced after each pass and tick.
  std::optional<store::GroupCommit> group_;
  // The write batch of the pass under way (ServerOptions::write_batch), or
  // null.
  store::WriteBatch* pass_batch_ = nullptr;
  // The last sync failed (logged once until one succeeds).
  bool sync_failing_ = false;

  friend struct CoapCallbacks;
  friend struct CoapResources;
};

}  // namespace edgeadmm::server
