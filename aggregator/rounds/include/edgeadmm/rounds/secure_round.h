// A round of a job under privacy.policy "secure-aggregation" (docs/
// aggregator.md, "Secure-aggregation rounds"): the devices send nothing to
// v1/update; their encoded updates go through the SecAgg+ phases, and the
// gateway learns only the decoded sum of the survivors' updates, which
// RoundEngine::CommitSecureSum applies (algorithms::SumRounds).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "edgeadmm/jobs/secure_aggregation_plan.h"

namespace edgeadmm::rounds {

struct SecureRound {
  int64_t round_id = 0;
  // Device identities in SecAgg+ index order (device i of the round);
  // secret like every cohort: the server gives it to SecAggService only.
  std::vector<std::string> cohort;
  jobs::SecureAggregationPlan plan;  // the job's, the same every round
  // Public, fresh for each round (DdgRotate's seed), from the engine's
  // kernel-seeded CSPRNG.
  std::array<std::byte, 32> rotation_seed{};
  // RoundEngine::ChargeSecureRound stored the survivors' charges (device
  // indices in the job): the round's end charges nothing more.
  bool charged = false;
  std::vector<size_t> charged_devices;
  // What the devices are told (Task::deadline_ms), stored with the round.
  int64_t deadline_ms = 0;
  // Rebuilt from the store after a restart (RoundStore::ResumableSecureRound):
  // the server resumes its phases from its round log, or aborts it.
  bool resumed = false;
};

}  // namespace edgeadmm::rounds
