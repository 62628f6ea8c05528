#include "edgeadmm/algorithms/admm_sharing_ledger.h"

#include <cmath>
#include <cstdio>

namespace edgeadmm::algorithms {
namespace {

std::string Format(const char* format, double a, double b = 0) {
  char text[320];
  std::snprintf(text, sizeof(text), format, a, b);
  return text;
}

bool ExactScores(const jobs::AdmmSharingConfig& s) {
  return s.test_records > 0 && s.score_noise == jobs::SharingScoreNoise::kExact;
}
bool GaussianScores(const jobs::AdmmSharingConfig& s) {
  return s.test_records > 0 &&
         s.score_noise == jobs::SharingScoreNoise::kGaussian;
}

}  // namespace

double SharingShareSensitivity(const jobs::AdmmSharingConfig& s) {
  return s.share_clip > 0 ? 2 * s.share_clip : s.sensitivity;
}

double SharingScoreSensitivity(const jobs::AdmmSharingConfig& s) {
  return s.score_clip > 0 ? 2 * s.score_clip : s.score_sensitivity;
}

double SharingDelta(const jobs::JobConfig& config) {
  return config.admm_sharing.target_delta > 0 ? config.admm_sharing.target_delta
                                              : config.delta;
}

bool SharingPartyMechanism(const jobs::JobConfig& config, int64_t iteration,
                           double& noise_multiplier) {
  const jobs::AdmmSharingConfig& s = config.admm_sharing;
  const bool last = iteration >= config.rounds;
  noise_multiplier = 0;  // none, paper, exact scores: +inf
  if (s.noise != jobs::SharingNoiseMode::kRigorous) return true;
  if (last && ExactScores(s)) return true;
  const double share = SharingShareSensitivity(s) / s.sigma;
  const double score = last && GaussianScores(s)
                           ? SharingScoreSensitivity(s) / s.score_sigma
                           : 0.0;
  noise_multiplier = 1.0 / std::sqrt(share * share + score * score);
  return true;
}

PartyLedgerMeaning DescribeSharingLedger(const jobs::JobConfig& config) {
  const jobs::AdmmSharingConfig& s = config.admm_sharing;
  PartyLedgerMeaning m;
  m.delta = SharingDelta(config);
  m.observer =
      "the gateway (its operator and anyone with its database, which keeps "
      "every share) and the other parties (they see functions of the shares)";
  m.conversion =
      "RDP composed over the party's accepted uploads, improved conversion "
      "(Canonne, Kamath, Steinke 2020) on the device ledger's orders (1.1 "
      "... 256)";
  if (s.noise != jobs::SharingNoiseMode::kRigorous) {
    const bool none = s.noise == jobs::SharingNoiseMode::kNone;
    m.status =
        none ? "+inf: uncovered release (noise = none: each share is "
               "released exactly)"
             : "+inf, not charged by the gateway ledger: paper mode's noise "
               "(in parameter space, heuristic C) is no Gaussian of known "
               "sensitivity on the share; the paper's claim is in the plan, "
               "labelled as such";
    m.mechanism =
        none ? "the exact share D_m x_m per accepted upload (no noise)"
             : "paper 000's xi ~ N(0, sigma^2 (D_m^T D_m + kappa I)^-1)";
    m.relation = none ? "none (no noise)"
                      : "none claimed by the gateway (the plan: paper 000 "
                        "Def. 2)";
    return m;
  }
  const double delta_share = SharingShareSensitivity(s);
  m.relation = Format(
      "replace one record of the party's block (or the whole block): the "
      "device clips its share to L2 norm C = %.6g, so one share moves by at "
      "most Delta = 2C = %.6g",
      delta_share / 2, delta_share);
  m.mechanism = Format(
      "Gaussian N(0, sigma^2 I_N) on each accepted share, sigma = %.6g, "
      "Delta/sigma = %.6g",
      s.sigma, delta_share / s.sigma);
  m.status = "charged: every accepted upload of the party";
  if (GaussianScores(s)) {
    const double delta_score = SharingScoreSensitivity(s);
    const double share = delta_share / s.sigma;
    const double score = delta_score / s.score_sigma;
    m.mechanism += Format(
        "; the last iteration's share and partial scores as one Gaussian of "
        "ratio sqrt((Delta/sigma)^2 + (Delta_s/sigma_s)^2) = %.6g "
        "(Delta_s/sigma_s = %.6g)",
        std::sqrt(share * share + score * score), score);
    m.relation += Format(
        ", its partial scores (clipped to C_s = %.6g) by at most Delta_s = "
        "%.6g",
        delta_score / 2, delta_score);
  }
  if (ExactScores(s)) {
    m.status =
        "charged; +inf from the last iteration on: uncovered release "
        "(score_noise = exact: the partial scores are released exactly)";
    m.mechanism += "; the last iteration's exact partial scores: uncovered";
  }
  return m;
}

}  // namespace edgeadmm::algorithms
