// RoundSummary: one closed round, for the progress line and Observe
// notifications.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "edgeadmm/rounds/validator.h"

namespace edgeadmm::rounds {

struct RoundSummary {
  int64_t round_id = 0;
  int64_t iteration = 0;  // after the round
  bool committed = false;
  size_t cohort_size = 0;
  size_t participants = 0;
  double central_epsilon = 0;
  bool validated = false;  // metrics below are set
  ValidationMetrics metrics;
  bool best = false;        // the new best validated model (selection on)
  bool early_stop = false;  // the job completed early after this round
};

// The validation part of a committed round's log line: "" when not
// validated, else ", validation loss L objective O[ accuracy A][ (best so
// far)]".
std::string ValidationSuffix(const RoundSummary& summary);

}  // namespace edgeadmm::rounds
