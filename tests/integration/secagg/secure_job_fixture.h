// Shared setup of the secure-aggregation CoAP tests: devices enrolled with
// their PSKs, a running job from a TOML, and the daemon's CoapServer in
// process on a loopback port turned until its SecAgg+ phases start, and
// the clock that closes its phases only on the tests' events.
#ifndef EDGEADMM_TESTS_INTEGRATION_SECAGG_SECURE_JOB_FIXTURE_H_
#define EDGEADMM_TESTS_INTEGRATION_SECAGG_SECURE_JOB_FIXTURE_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "edgeadmm/jobs/job_config.h"
#include "edgeadmm/jobs/job_store.h"
#include "edgeadmm/registry/device_registry.h"
#include "edgeadmm/server/coap_server.h"
#include "test_database.h"

namespace edgeadmm::testing {

// Enrolls "dev-000" .. "dev-<n-1>" (three digits), appending their names
// and PSKs.
inline void EnrollWithPsks(store::Database& db, uint32_t n,
                           std::vector<std::string>& names,
                           std::vector<std::vector<uint8_t>>& psks) {
  registry::DeviceRegistry reg(db);
  for (uint32_t i = 0; i < n; ++i) {
    char name[16];
    std::snprintf(name, sizeof(name), "dev-%03u", i);
    auto psk = reg.Add(name);
    ASSERT_TRUE(psk.ok());
    psks.push_back(*psk);
    names.push_back(name);
  }
}

// Parses `toml`, creates the job and sets it running.
inline void StartRunningJob(store::Database& db, const std::string& toml) {
  auto config = jobs::ParseJobConfig(toml);
  ASSERT_TRUE(config.ok()) << config.error().message();
  auto id = jobs::CreateJob(db, *config, toml);
  ASSERT_TRUE(id.ok());
  ASSERT_TRUE(jobs::SetJobState(db, *id, jobs::JobState::kRunning).ok());
}

// The daemon's CoapServer on 127.0.0.1, an ephemeral port; its tasks'
// spread `upload_spread_us` per expected cohort member.
inline void StartLoopbackServer(
    store::Database& db, std::unique_ptr<server::CoapServer>& out,
    uint32_t upload_spread_us = server::ServerOptions{}.upload_spread_us) {
  server::ServerOptions options;
  options.upload_spread_us = upload_spread_us;
  options.address = "127.0.0.1";
  options.port = 0;
  options.io_batch_reads = 0;
  options.max_secure_rounds = 2;  // TwoSecureJobsAtOnceClientsNameTheirJob
  auto server = server::CoapServer::Create(db, options);
  ASSERT_TRUE(server.ok()) << server.status().str();
  out = std::move(*server);
}

// The three above: `n` devices enrolled, the job of `toml` running and the
// server on loopback.
inline void StartSecureJobOnLoopback(
    store::Database& db, uint32_t n, const std::string& toml,
    std::vector<std::string>& names, std::vector<std::vector<uint8_t>>& psks,
    std::unique_ptr<server::CoapServer>& out,
    uint32_t upload_spread_us = server::ServerOptions{}.upload_spread_us) {
  ASSERT_NO_FATAL_FAILURE(EnrollWithPsks(db, n, names, psks));
  ASSERT_NO_FATAL_FAILURE(StartRunningJob(db, toml));
  ASSERT_NO_FATAL_FAILURE(StartLoopbackServer(db, out, upload_spread_us));
}

// A test's clock for the server (CoapServer::set_clock). It is held while
// a SecAgg+ phase (the first slot's) is open, so a phase closes only when
// every device it awaits answered or, once every device it awaits is gone,
// at its deadline, which AfterTurn then passes; between phases it steps
// 10 ms a turn (JobHost advances an engine at most every 10 ms). No
// wall-clock deadline is involved: a slow build closes no phase early.
class HeldServerClock {
 public:
  // From the wall clock's now: the job a server loaded at its start has
  // its times on that clock.
  HeldServerClock() : now_ms_(server::WallClockMs()) {}
  void Attach(server::CoapServer& server) {
    server.set_clock([this] { return now_ms_; });
  }
  int64_t now_ms() const { return now_ms_; }
  void Advance(int64_t ms) { now_ms_ += ms; }
  // After a turn of `server`; `gone(identity)`: whether that device is gone
  // for good; `phase_ms`: the phases' deadline.
  template <typename Gone>
  void AfterTurn(const server::CoapServer& server, int64_t phase_ms,
                 Gone gone) {
    using secure_aggregation::SecAggPhase;
    const server::SecAggService& rounds = server.secagg();
    const SecAggPhase phase = rounds.phase();
    if (phase < SecAggPhase::kAdvertise || phase > SecAggPhase::kUnmasking) {
      now_ms_ += 10;
      return;
    }
    const std::vector<uint32_t> awaited = rounds.Awaited();
    for (uint32_t device : awaited) {
      if (!gone(rounds.identities()[device])) return;
    }
    if (!awaited.empty()) now_ms_ += phase_ms;
  }

 private:
  int64_t now_ms_;
};

// Turns `server` until its engine opened a secure round and the SecAgg+
// phases started, stepping its `clock`.
inline void TurnUntilPhasesStart(server::CoapServer& server,
                                 HeldServerClock& clock) {
  while (server.engine() == nullptr ||
         server.engine()->open_secure_round() == nullptr ||
         server.secagg().phase() ==
             secure_aggregation::SecAggPhase::kNotStarted) {
    ASSERT_TRUE(server.RunOnce(1).ok());
    clock.AfterTurn(server, 0, [](const std::string&) { return false; });
  }
}

}  // namespace edgeadmm::testing

#endif  // EDGEADMM_TESTS_INTEGRATION_SECAGG_SECURE_JOB_FIXTURE_H_
