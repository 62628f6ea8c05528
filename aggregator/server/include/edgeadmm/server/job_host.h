// JobHost: the jobs the daemon serves. Picks up the running jobs from the
// store (the admin CLI starts and stops jobs in the same database), owns a
// RoundEngine and validation set per job, hands the RequestHandler's
// JobRouter the engines, and advances each on the server's clock.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "edgeadmm/result.h"
#include "edgeadmm/rounds/lifetime_reservations.h"
#include "edgeadmm/rounds/round_accountant.h"
#include "edgeadmm/rounds/round_engine.h"
#include "edgeadmm/rounds/validator.h"
#include "edgeadmm/server/coordinator_lease.h"
#include "edgeadmm/server/gateway_metrics.h"
#include "edgeadmm/server/request_handler.h"
#include "edgeadmm/store/database.h"

namespace edgeadmm::server {

// The wall clock (CLOCK_REALTIME) in ms: round deadlines and release
// times (JobHost's real clock, CoapServer's unless a test replaces it).
int64_t WallClockMs();

class JobHost {
 public:
  // `db` and `handler` must outlive the host.
  JobHost(store::Database& db, RequestHandler& handler)
      : db_(&db), handler_(&handler) {}

  // Loads every running job that has no engine yet (a loaded one stays);
  // once a new job is loaded, the engines of stopped jobs go (until then
  // they answer their devices DONE). Store errors.
  Status PickUpRunningJob(int64_t now_ms);
  // One tick at wall-clock `now_ms`: a job pick-up at most every second, an
  // engine advance at most every 10 ms, or at once when a round's cohort is
  // complete (its commit then runs here, after the receipts went out).
  // Errors are logged, never returned: the daemon stays up through a full
  // disk or a read-only database, and the failed step is retried in place
  // (RoundEngine::Advance; docs/security.md, "Durable receipts and write
  // failures").
  void Tick(int64_t now_ms);

  // Names this gateway (ValidGatewayId) and makes the running job's engine
  // coordinate only while this gateway holds the job's CoordinatorLease. A
  // gateway that finds the lease taken stands by: on PostgreSQL, for a job
  // standbys can serve (RoundEngine::CanFollow), with a follower engine
  // that serves the coordinator's open round and stores the uploads it
  // accepts; otherwise with no engine (devices get "no job"). It asks for
  // the lease again at every pick-up, i.e. every second, so it takes over
  // within a second of the holder's death, and the coordinator engine's
  // Open resumes or discards the round the holder left open. Without a
  // call (tests of one gateway) the host always loads the job.
  void set_gateway_id(std::string gateway_id) {
    lease_ = std::make_unique<CoordinatorLease>(*db_, std::move(gateway_id));
  }
  // The loaded engine of lowest job id, or null.
  rounds::RoundEngine* engine() {
    return hosted_.empty() ? nullptr : hosted_.begin()->second.engine.get();
  }
  // Every loaded engine, by job id.
  std::vector<rounds::RoundEngine*> engines() const;

  // Where Tick counts the rounds that end (committed or discarded), with
  // the time each was open; null (the default): nowhere. Must outlive the
  // host.
  void set_metrics(GatewayMetrics* metrics) { metrics_ = metrics; }
  // The gauges of engine() for a metrics scrape.
  JobGauges Gauges() const;
  // The gauges of every loaded job, by job id.
  std::vector<JobGauges> AllGauges() const;

  // Under trusted-aggregator, the end of each round (its commit or
  // discard, and the next round's opening) becomes visible at its deadline
  // + `delay_ms` exactly: Tick holds the daemon's loop until then, so the
  // release time does not tell the cohort's size (docs/privacy.md,
  // "Release timing"). 0: no hold. A round whose close ran past that time
  // is counted as an overrun and logged.
  void set_release_delay_ms(int64_t delay_ms) { release_delay_ms_ = delay_ms; }
  // The wall clock in ms and a sleep of `ms` (tests replace them).
  struct Clock {
    std::function<int64_t()> now_ms;
    std::function<void(int64_t ms)> sleep_ms;
  };
  void set_clock(Clock clock) { clock_ = std::move(clock); }
  // Counts, at `now_ms`, the commit delay of each complete round a Tick
  // since the last call committed (GatewayMetrics::CountCommitDelay): the
  // server calls it once the tick's writes are durable.
  void CountCommitDelays(int64_t now_ms);

 private:
  // One loaded job.
  struct Hosted {
    std::unique_ptr<rounds::RoundEngine> engine;
    std::unique_ptr<rounds::Validator> validator;  // if the job has data
    int64_t last_advance_ms = 0;
    // The round seen open at the last tick (0: none) and when it was first
    // seen open, for the round duration.
    int64_t seen_round_id = 0;
    int64_t seen_round_opened_ms = 0;
    int64_t seen_round_deadline_ms = 0;
  };

  store::Database* db_;
  RequestHandler* handler_;
  rounds::PrivacyRoundAccountant accountant_;
  // Open rounds' worst-case charges, seen by every engine's lifetime check.
  rounds::LifetimeReservations reservations_;
  std::map<int64_t, Hosted> hosted_;         // by job id
  std::unique_ptr<CoordinatorLease> lease_;  // null: one gateway
  int64_t standby_job_ = 0;  // the job last logged as standing by for
  int64_t last_pickup_ms_ = 0;
  GatewayMetrics* metrics_ = nullptr;
  int64_t release_delay_ms_ = 0;
  // The completed_ms of each complete round committed since the last
  // CountCommitDelays.
  std::vector<int64_t> committed_complete_ms_;
  Clock clock_ = RealClock();

  static Clock RealClock();
  // After an engine advance: counts a round that ended since the last one
  // and holds its release (set_release_delay_ms).
  void ObserveRound(Hosted& hosted, int64_t iteration_before, int64_t now_ms);
  void HoldRelease(const rounds::RoundEngine& engine, int64_t deadline_ms);
  // Advances one job's engine (Tick).
  void AdvanceJob(Hosted& hosted, int64_t now_ms);
  // False if job `id` is loaded, coordinated and running (nothing to do).
  bool MayPickUp(int64_t id) const;
  // Loads `job` unless it is loaded (and coordinated): true if it loaded it.
  Result<bool> PickUp(const jobs::JobRecord& job);
  // Loads (or replaces) the engine of `job` in `role`, and its validator.
  Status Serve(const jobs::JobRecord& job, rounds::RoundEngine::Role role);
  // Hands the handler's router the loaded engines.
  void Reroute();
  // True if this gateway coordinates `job` (it holds, or just took, the
  // job's lease; always without a lease); logs the outcome.
  Result<bool> TakeLease(const jobs::JobRecord& job);
};

}  // namespace edgeadmm::server
