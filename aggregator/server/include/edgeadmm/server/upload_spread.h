// The upload spread a round's task states (RoundTask.upload_spread_ms;
// docs/protocol.md, "Upload spread"): a participating device waits its own
// share of it after its step before it uploads (a secure round's device:
// before it asks for phase 0), so that a cohort notified at once reaches
// the gateway at about 1e6 / us_per_device requests a second instead of
// in one burst (at a9a's 32,561 devices the burst overflowed the
// endpoint sockets, and the devices that lost their datagrams came back
// with new handshakes: docs/results.md, "32,561 sessions on one gateway").
#pragma once

#include <cstdint>

#include "edgeadmm/job_types/job_config.h"

namespace edgeadmm::server {

// us_per_device times the job's expected cohort (fixed: m; Poisson: q times
// its n devices, rounded up: the configuration's, never the sampled cohort,
// whose size is secret under trusted-aggregator), in ms, at most a quarter
// of `deadline_ms` (the time the round has left) and
// wire::kMaxUploadSpreadMs (longer ones the devices refuse).
uint32_t UploadSpreadMs(const jobs::JobConfig& config, int64_t n,
                        uint32_t us_per_device, uint32_t deadline_ms);

// The time a secure round's spread is a quarter of at most: the smaller of
// `deadline_ms` (the round's time left) and one phase's time
// ([secure_aggregation] phase_seconds), since the waits fall in phase 1.
uint32_t SecurePhaseSpreadWindowMs(const jobs::JobConfig& config,
                                   uint32_t deadline_ms);

}  // namespace edgeadmm::server
