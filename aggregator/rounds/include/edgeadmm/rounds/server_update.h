// Server updates: how a committed round's accepted uploads become the next
// model. The mathematics is the algorithm's (aggregator/algorithms); this
// checks the round's shape and dispatches.
#pragma once

#include <cstdint>
#include <vector>

#include "edgeadmm/algorithms/algorithm.h"
#include "edgeadmm/jobs/job_config.h"
#include "edgeadmm/result.h"
#include "edgeadmm/rounds/sampling_rng.h"

namespace edgeadmm::rounds {

using algorithms::ServerModel;

// Length of one upload vector (docs/protocol.md: what Update.vector holds
// is the algorithm's Algorithm::update_kind).
// In the round after `iteration` committed rounds (a task phase may make
// it longer: Algorithm::UploadLengthAt).
int64_t UploadLength(const jobs::JobConfig& config, int64_t iteration);

// Applies one round's uploads (each UploadLength or, all of them, the
// algorithm's MaxUploadLength long) to `model` with the
// job's algorithm (its ApplyRound); `noise_rng` draws the server's noise
// where the policy adds one (trusted-aggregator). INVALID_ARGUMENT on no
// uploads (except under trusted-aggregator, whose rounds release noise
// alone), a wrong length or a model of another dimension; DRBG errors;
// OUT_OF_RANGE, `model` unchanged, if float32 could not hold the next model
// (it could be neither stored nor sent).
Status ApplyRound(const jobs::JobConfig& config, int64_t n,
                  const std::vector<std::vector<double>>& uploads,
                  SamplingRng& noise_rng, ServerModel& model);

}  // namespace edgeadmm::rounds
