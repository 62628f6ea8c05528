// Deployment policies: what the aggregator charges for one committed round
// of federated private ADMM (paper 002, Alg. 3; the threat model and the
// derivations are in docs/privacy.md).
//
// Each device uploads du = 2 lambda Clip(x - z, C) + lambda eta.
//  - participation (central DP, device-side noise eta ~ N(0, sigma^2 I)):
//    each device whose upload was accepted in the round is charged a
//    Gaussian mechanism, zero-out neighbours, sensitivity 2 lambda C, noise
//    std lambda sigma sqrt(m_k) (the noise of the m_k accepted uploads).
//    Devices that did not contribute are not charged; no amplification by
//    sampling is claimed. Reported: the maximum over devices.
//    Sound when a device's persisted state does not carry its own past noise
//    (see docs/privacy.md, "participation").
//  - participation-own-noise: as participation but only the device's own
//    noise counts: noise std lambda sigma. Sound whatever the device state
//    holds (the conservative fallback).
//  - trusted-aggregator (central DP, devices send clipped terms without
//    noise, the aggregator adds N(0, (lambda sigma_c)^2 I) to the sum, secret
//    Poisson cohorts of rate q): one central subject charged a
//    Poisson-subsampled Gaussian, add/remove, sensitivity 2 lambda C, noise
//    std lambda sigma_c, every released round.
//  - local-dp (each device w.r.t. the aggregator): each participating device
//    is charged a Gaussian mechanism, replace-one neighbours on its data,
//    sensitivity 4 lambda C, noise std lambda sigma.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "edgeadmm/host/error.h"
#include "edgeadmm/privacy/mechanism.h"

namespace edgeadmm::privacy {

enum class Policy : uint8_t {
  kParticipation = 0,
  kTrustedAggregator = 1,
  kLocalDp = 2,
  kParticipationOwnNoise = 3,
};

// "participation", "trusted-aggregator", "local-dp",
// "participation-own-noise".
const char* PolicyName(Policy policy);
// Inverse of PolicyName. INVALID_ARGUMENT for another name.
host::ErrorOr<Policy> ParsePolicy(const std::string& name);

// What the aggregator knows about one committed (released) round. Rounds
// discarded below m_min release nothing and are not charged.
struct RoundDescriptor {
  uint64_t round = 0;             // round id; charges must have increasing ids
  double lambda = 1.0;            // ADMM relaxation step lambda (paper 002)
  double clip = 1.0;              // clipping norm C
  double sigma = 1.0;             // noise sigma: device-side (participation,
                                  // local-dp) or the aggregator's sigma_c
  double sampling_rate = 1.0;     // Poisson rate q of the cohort
                                  // (trusted-aggregator only)
  uint64_t accepted_uploads = 0;  // m_k
  std::vector<std::string> participants;  // ids of the m_k accepted devices
                                          // (the planned cohort in a check)
                                          // (all but trusted-aggregator)
};

// OK when the round is consistent with the policy: lambda, C, sigma finite
// and > 0; q in (0, 1] (trusted-aggregator); otherwise m_k >= 1 and at most
// the number of distinct, well-formed participant ids (equal for a charge; a
// budget check may pass the planned cohort with m_k = m_min, the worst case).
// INVALID_ARGUMENT otherwise.
host::Error ValidateRound(Policy policy, const RoundDescriptor& round);

// The mechanism each charged subject incurs in `round` under `policy` (see
// the file comment). INVALID_ARGUMENT when ValidateRound fails.
host::ErrorOr<Mechanism> ChargedMechanism(Policy policy,
                                          const RoundDescriptor& round);

// The noise sigma that gives the charged mechanism noise multiplier z:
// participation 2 C z / sqrt(m), trusted-aggregator and
// participation-own-noise 2 C z, local-dp 4 C z (lambda cancels).
// INVALID_ARGUMENT for z or C not finite and > 0, or m = 0 under participation.
host::ErrorOr<double> SigmaForNoiseMultiplier(Policy policy,
                                              double noise_multiplier,
                                              double clip,
                                              uint64_t accepted_uploads);

// OK when `id` can name a ledger subject: 1..128 printable, non-space ASCII
// characters. INVALID_ARGUMENT otherwise.
host::Error ValidateSubjectId(const std::string& id);

}  // namespace edgeadmm::privacy
