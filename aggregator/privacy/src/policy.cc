#include "edgeadmm/privacy/policy.h"

#include <cmath>
#include <set>

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

host::Error ValidateSubjectId(const std::string& id) {
  if (id.empty() || id.size() > 128) {
    return host::Error::InvalidArgument(
        "subject ids must have 1..128 characters");
  }
  for (char c : id) {
    if (c <= ' ' || c > '~') {
      return host::Error::InvalidArgument(
          "subject id '" + id + "' has a space or non-printable character");
    }
  }
  return host::Error::Ok();
}

host::Error ValidateRound(Policy policy, const RoundDescriptor& round) {
  EDGEADMM_HOST_TRY(internal::CheckPositive("lambda", round.lambda));
  EDGEADMM_HOST_TRY(internal::CheckPositive("clip norm C", round.clip));
  EDGEADMM_HOST_TRY(internal::CheckPositive("sigma", round.sigma));
  if (policy == Policy::kTrustedAggregator) {
    return internal::CheckRate("sampling rate q", round.sampling_rate);
  }
  if (round.accepted_uploads == 0) {
    return host::Error::InvalidArgument(
        "a charged round needs m_k >= 1 accepted uploads");
  }
  if (round.participants.size() < round.accepted_uploads) {
    return host::Error::InvalidArgument(
        "m_k = " + std::to_string(round.accepted_uploads) + " but only " +
        std::to_string(round.participants.size()) + " participant ids given");
  }
  std::set<std::string> seen;
  for (const std::string& id : round.participants) {
    EDGEADMM_HOST_TRY(ValidateSubjectId(id));
    if (!seen.insert(id).second) {
      return host::Error::InvalidArgument("device '" + id +
                                          "' appears twice in one round");
    }
  }
  return host::Error::Ok();
}

host::ErrorOr<Mechanism> ChargedMechanism(Policy policy,
                                          const RoundDescriptor& round) {
  EDGEADMM_HOST_TRY(ValidateRound(policy, round));
  // Every policy charges a Gaussian on the clipped term 2 lambda Clip(., C)
  // with noise lambda sigma; they differ in the relation, the noise that
  // counts, the sensitivity and the sampling.
  Mechanism m;
  m.sensitivity = 2.0 * round.lambda * round.clip;
  m.noise_std = round.lambda * round.sigma;
  switch (policy) {
    case Policy::kParticipation:
      m.neighbouring = Neighbouring::kZeroOut;
      m.noise_std *= std::sqrt(static_cast<double>(round.accepted_uploads));
      break;
    case Policy::kParticipationOwnNoise:
      m.neighbouring = Neighbouring::kZeroOut;
      break;
    case Policy::kTrustedAggregator:
      m.neighbouring = Neighbouring::kAddRemove;
      m.sampling_rate = round.sampling_rate;
      if (m.sampling_rate < 1.0) {
        m.kind = MechanismKind::kPoissonSubsampledGaussian;
      }
      break;
    case Policy::kLocalDp:
      m.neighbouring = Neighbouring::kReplaceOne;
      m.sensitivity *= 2.0;  // 4 lambda C: both data points move
      break;
  }
  EDGEADMM_HOST_TRY(ValidateMechanism(m));
  return m;
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
