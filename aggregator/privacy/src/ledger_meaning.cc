#include "edgeadmm/privacy/ledger_meaning.h"

namespace edgeadmm::privacy {

LedgerMeaning CentralLedgerMeaning(Policy policy, int64_t max_colluders) {
  switch (policy) {
    case Policy::kTrustedAggregator:
      return {
          "poisson_subsampled_gaussian per released round (the "
          "aggregator's noise on the secret cohort's sum)",
          "add/remove one device (user-level)",
          "whoever sees the released models and their timing (not the "
          "gateway, which is trusted)"};
    case Policy::kParticipationOwnNoise:
      return {
          "gaussian per accepted upload (the device's own noise), "
          "maximum over devices",
          "zero-out one device's data (user-level)",
          "whoever sees the released models (not the gateway)"};
    case Policy::kSecureAggregation:
      return {
          "distributed discrete gaussian per completed round (the sum "
          "of the surviving honest devices' noises, at least the "
          "cohort less the dropouts and the " +
              std::to_string(max_colluders) +
              " colluders), charged to "
              "each device of the round; RDP with the improved conversion "
              "(also when privacy.accountant is pld)",
          "zero-out one device's data (user-level)",
          "the gateway and any " + std::to_string(max_colluders) +
              " colluding devices, and whoever sees the released "
              "models"};
    case Policy::kParticipation:
    case Policy::kLocalDp:
      break;
  }
  const std::string t = std::to_string(max_colluders);
  return {
      "gaussian per accepted upload (the noise of the round's accepted "
      "uploads less the " +
          t +
          " that colluding devices know: nu * "
          "sqrt(max(m_k - " +
          t + ", 1))), maximum over devices",
      "zero-out one device's data (user-level)",
      "whoever sees the released models, up to " + t +
          " colluding devices of the cohort included (max_colluders = " + t +
          "; not the gateway)"};
}

LedgerMeaning RandomWalkLedgerMeaning() {
  return {
      "gaussian per accepted upload (the device's own noise; the local "
      "guarantee, as local:<id>), maximum over devices",
      "replace-one device's data (user-level)",
      "the gateway, which sees every upload, and every device (z at "
      "its visits, round ids, task timing), the export included; the "
      "paper 002 Thm. 4 network bound is not charged"};
}

LedgerMeaning LocalLedgerMeaning(Policy policy, int64_t max_colluders) {
  if (policy == Policy::kSecureAggregation) {
    const std::string t = max_colluders < 0 ? "privacy.max_colluders"
                                            : std::to_string(max_colluders);
    return {
        "distributed discrete gaussian per accepted masked input (the "
        "gateway sees only the unmasked sum of the round's survivors: "
        "the noise of at least m - D - " +
            t + " honest devices), RDP with the improved conversion",
        "replace-one device's data (user-level)",
        "the gateway and any " + t +
            " colluding devices (no upload is seen alone)"};
  }
  if (policy == Policy::kTrustedAggregator) {
    return {"none: trusted-aggregator uploads carry no noise, epsilon +inf",
            "replace-one device's data",
            "the gateway, which sees every accepted upload (not protected)"};
  }
  return {"gaussian per accepted upload (the device's own noise)",
          "replace-one device's data",
          "the gateway, which sees every accepted upload"};
}

EpsilonReport DescribeLedger(const LedgerMeaning& meaning, double epsilon,
                             double delta, double order, Conversion conversion,
                             const std::string& subject, Policy policy,
                             uint64_t compositions) {
  EpsilonReport report;
  report.epsilon = epsilon;
  report.delta = delta;
  report.order = order;
  report.conversion = conversion;
  report.mechanism = meaning.mechanism;
  report.neighbouring = meaning.neighbouring;
  report.subject = subject;
  report.policy = PolicyName(policy);
  report.compositions = compositions;
  report.observer = meaning.observer;
  return report;
}

}  // namespace edgeadmm::privacy
