// Deployment policies: what the aggregator charges for one committed round
// (the threat model and the derivations per algorithm are in
// docs/privacy.md; the daemon's charges are rounds::LedgerBook's). For
// prox-admm (paper 002, Alg. 3), where each device uploads
// du = 2 lambda Clip(x - z, C) + lambda eta:
//  - participation (central DP, device-side noise eta ~ N(0, sigma^2 I)):
//    each device whose upload was accepted in the round is charged a
//    Gaussian mechanism, zero-out neighbours, sensitivity 2 lambda C, noise
//    std lambda sigma sqrt(max(m_k - t, 1)): the noise of the m_k accepted
//    uploads less the t = privacy.max_colluders of them that colluding devices
//    of the cohort know (each knows its own noise; never fewer than the
//    device's own). Devices that did not contribute are not charged; no
//    amplification by sampling is claimed. Reported: the maximum over
//    devices.
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
//  - secure-aggregation (central DP against the gateway and any t devices:
//    SecAgg+ masks every upload, each device adds its share of a distributed
//    discrete Gaussian; the gateway sees only the cohort's sum): the sum of
//    the surviving honest devices' discrete Gaussians, zero-out neighbours,
//    charged per completed round (secure_aggregation/ddg_parameters.h).
//  - local-dp (each device w.r.t. the aggregator): each participating device
//    is charged a Gaussian mechanism, replace-one neighbours on its data,
//    sensitivity 4 lambda C, noise std lambda sigma.
#pragma once

#include <cstdint>
#include <string>

#include "edgeadmm/host/error.h"

namespace edgeadmm::privacy {

enum class Policy : uint8_t {
  kParticipation = 0,
  kTrustedAggregator = 1,
  kLocalDp = 2,
  kParticipationOwnNoise = 3,
  kSecureAggregation = 4,
};

// "participation", "trusted-aggregator", "local-dp",
// "participation-own-noise", "secure-aggregation".
const char* PolicyName(Policy policy);
// Inverse of PolicyName. INVALID_ARGUMENT for another name.
host::ErrorOr<Policy> ParsePolicy(const std::string& name);

// The noise multiplier charged under `participation` for one round of
// `accepted_uploads` uploads with at most `colluders` of the cohort's
// devices pooling their own noises: nu * sqrt(max(m - t, 1)) (the charged
// device's own noise is never known to the others).
double ParticipationNoiseMultiplier(double own_noise_multiplier,
                                    uint64_t accepted_uploads,
                                    uint64_t colluders);

// The noise sigma that gives the charged mechanism noise multiplier z:
// participation 2 C z / sqrt(m - t), trusted-aggregator and
// participation-own-noise 2 C z, local-dp 4 C z (lambda cancels);
// secure-aggregation plans its noise with ChooseDdgParameters instead.
// INVALID_ARGUMENT for z or C not finite and > 0, or m <= t under
// participation.
host::ErrorOr<double> SigmaForNoiseMultiplier(Policy policy,
                                              double noise_multiplier,
                                              double clip,
                                              uint64_t accepted_uploads,
                                              uint64_t colluders);

}  // namespace edgeadmm::privacy
