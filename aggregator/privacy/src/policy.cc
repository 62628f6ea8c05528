#include "edgeadmm/privacy/policy.h"

#include <cmath>

#include "checks.h"

namespace edgeadmm::privacy {

const char* PolicyName(Policy policy) {
  switch (policy) {
    case Policy::kParticipation:
      return "participation";
    case Policy::kTrustedAggregator:
      return "trusted-aggregator";
    case Policy::kLocalDp:
      return "local-dp";
    case Policy::kParticipationOwnNoise:
      return "participation-own-noise";
  }
  return "unknown";
}

host::ErrorOr<Policy> ParsePolicy(const std::string& name) {
  for (Policy p : {Policy::kParticipation, Policy::kTrustedAggregator,
                   Policy::kLocalDp, Policy::kParticipationOwnNoise}) {
    if (name == PolicyName(p)) return p;
  }
  return host::Error::InvalidArgument(
      "unknown policy '" + name +
      "' (expected participation, participation-own-noise, "
      "trusted-aggregator or local-dp)");
}

host::ErrorOr<double> SigmaForNoiseMultiplier(Policy policy,
                                              double noise_multiplier,
                                              double clip,
                                              uint64_t accepted_uploads) {
  EDGEADMM_HOST_TRY(
      internal::CheckPositive("noise multiplier", noise_multiplier));
  EDGEADMM_HOST_TRY(internal::CheckPositive("clip norm C", clip));
  switch (policy) {
    case Policy::kParticipation:
      if (accepted_uploads == 0) {
        return host::Error::InvalidArgument(
            "participation needs m >= 1 uploads");
      }
      return 2.0 * clip * noise_multiplier /
             std::sqrt(static_cast<double>(accepted_uploads));
    case Policy::kTrustedAggregator:
    case Policy::kParticipationOwnNoise:
      return 2.0 * clip * noise_multiplier;
    case Policy::kLocalDp:
      return 4.0 * clip * noise_multiplier;
  }
  return host::Error::InvalidArgument("unknown policy");
}

}  // namespace edgeadmm::privacy
