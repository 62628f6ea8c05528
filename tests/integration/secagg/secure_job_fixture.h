// Shared setup of the secure-aggregation CoAP tests: devices enrolled with
// their PSKs, a running job from a TOML, and the daemon's CoapServer in
// process on a loopback port turned until its SecAgg+ phases start.
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

// The daemon's CoapServer on 127.0.0.1, an ephemeral port.
inline void StartLoopbackServer(store::Database& db,
                                std::unique_ptr<server::CoapServer>& out) {
  server::ServerOptions options;
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
inline void StartSecureJobOnLoopback(store::Database& db, uint32_t n,
                                     const std::string& toml,
                                     std::vector<std::string>& names,
                                     std::vector<std::vector<uint8_t>>& psks,
                                     std::unique_ptr<server::CoapServer>& out) {
  ASSERT_NO_FATAL_FAILURE(EnrollWithPsks(db, n, names, psks));
  ASSERT_NO_FATAL_FAILURE(StartRunningJob(db, toml));
  ASSERT_NO_FATAL_FAILURE(StartLoopbackServer(db, out));
}

// Turns `server` until its engine opened a secure round and the SecAgg+
// phases started.
inline void TurnUntilPhasesStart(server::CoapServer& server) {
  while (server.engine() == nullptr ||
         server.engine()->open_secure_round() == nullptr ||
         server.secagg().phase() ==
             secure_aggregation::SecAggPhase::kNotStarted) {
    ASSERT_TRUE(server.RunOnce(1).ok());
  }
}

}  // namespace edgeadmm::testing

#endif  // EDGEADMM_TESTS_INTEGRATION_SECAGG_SECURE_JOB_FIXTURE_H_
