// Round descriptors for the privacy tests.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "edgeadmm/privacy/policy.h"

namespace edgeadmm::privacy::test_support {

// A round with the given step, noise and participants (m_k = their number).
inline RoundDescriptor MakeRound(uint64_t id, double lambda, double clip,
                                 double sigma, double q,
                                 std::vector<std::string> participants) {
  RoundDescriptor round;
  round.round = id;
  round.lambda = lambda;
  round.clip = clip;
  round.sigma = sigma;
  round.sampling_rate = q;
  round.accepted_uploads = participants.size();
  round.participants = std::move(participants);
  return round;
}

}  // namespace edgeadmm::privacy::test_support
