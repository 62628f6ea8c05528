#include "edgeadmm/algorithms/admm_sharing_ledger.h"

#include <cmath>
#include <cstdio>

namespace edgeadmm::algorithms {
namespace {

std::string Format(const char* format, double a, double b = 0) {
  char text[160];
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
  const double share = s.sensitivity / s.sigma;
  const double score =
      last && GaussianScores(s) ? s.score_sensitivity / s.score_sigma : 0.0;
  noise_multiplier = 1.0 / std::sqrt(share * share + score * score);
  return true;
}

SharingLedgerMeaning DescribeSharingLedger(const jobs::JobConfig& config) {
  const jobs::AdmmSharingConfig& s = config.admm_sharing;
  SharingLedgerMeaning m;
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
  m.relation = Format(
      "a change of the party's block that moves one released share by at "
      "most Delta = %.6g in L2",
      s.sensitivity);
  m.mechanism = Format(
      "Gaussian N(0, sigma^2 I_N) on each accepted share, sigma = %.6g, "
      "Delta/sigma = %.6g",
      s.sigma, s.sensitivity / s.sigma);
  m.status = "charged: every accepted upload of the party";
  if (GaussianScores(s)) {
    const double share = s.sensitivity / s.sigma;
    const double score = s.score_sensitivity / s.score_sigma;
    m.mechanism += Format(
        "; the last iteration's share and partial scores as one Gaussian of "
        "ratio sqrt((Delta/sigma)^2 + (Delta_s/sigma_s)^2) = %.6g "
        "(Delta_s/sigma_s = %.6g)",
        std::sqrt(share * share + score * score), score);
    m.relation += Format(
        " and its partial scores by at most Delta_s = %.6g (the operator's "
        "bounds, not verified)",
        s.score_sensitivity);
  } else {
    m.relation += " (the operator's bound, not verified)";
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
