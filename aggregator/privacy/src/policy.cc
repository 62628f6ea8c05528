#include "edgeadmm/privacy/policy.h"

#include <cmath>
#include <string>

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
    case Policy::kSecureAggregation:
      return "secure-aggregation";
  }
  return "unknown";
}

host::ErrorOr<Policy> ParsePolicy(const std::string& name) {
  for (Policy p :
       {Policy::kParticipation, Policy::kTrustedAggregator, Policy::kLocalDp,
        Policy::kParticipationOwnNoise, Policy::kSecureAggregation}) {
    if (name == PolicyName(p)) return p;
  }
  return host::Error::InvalidArgument(
      "unknown policy '" + name +
      "' (expected participation, participation-own-noise, "
      "trusted-aggregator, secure-aggregation or local-dp)");
}

double ParticipationNoiseMultiplier(double own_noise_multiplier,
                                    uint64_t accepted_uploads,
                                    uint64_t colluders) {
  const uint64_t unknown =
      accepted_uploads > colluders ? accepted_uploads - colluders : 1;
  return own_noise_multiplier * std::sqrt(static_cast<double>(unknown));
}

host::ErrorOr<double> SigmaForNoiseMultiplier(Policy policy,
                                              double noise_multiplier,
                                              double clip,
                                              uint64_t accepted_uploads,
                                              uint64_t colluders) {
  EDGEADMM_HOST_TRY(
      internal::CheckPositive("noise multiplier", noise_multiplier));
  EDGEADMM_HOST_TRY(internal::CheckPositive("clip norm C", clip));
  switch (policy) {
    case Policy::kParticipation:
      if (accepted_uploads <= colluders) {
        return host::Error::InvalidArgument(
            "participation needs more accepted uploads per round (m = " +
            std::to_string(accepted_uploads) +
            ") than colluding devices (t = " + std::to_string(colluders) + ")");
      }
      return 2.0 * clip * noise_multiplier /
             std::sqrt(static_cast<double>(accepted_uploads - colluders));
    case Policy::kTrustedAggregator:
    case Policy::kParticipationOwnNoise:
      return 2.0 * clip * noise_multiplier;
    case Policy::kLocalDp:
      return 4.0 * clip * noise_multiplier;
    case Policy::kSecureAggregation:
      return host::Error::InvalidArgument(
          "secure-aggregation has no Gaussian sigma: its discrete noise is "
          "chosen from the target epsilon (ChooseDdgParameters)");
  }
  return host::Error::InvalidArgument("unknown policy");
}

}  // namespace edgeadmm::privacy
