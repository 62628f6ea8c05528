#include "edgeadmm/privacy/ledger_meaning.h"

namespace edgeadmm::privacy {

LedgerMeaning CentralLedgerMeaning(Policy policy) {
  switch (policy) {
    case Policy::kTrustedAggregator:
      return {"poisson_subsampled_gaussian per released round (the "
              "aggregator's noise on the secret cohort's sum)",
              "add/remove one device (user-level)",
              "whoever sees the released models and their timing (not the "
              "gateway, which is trusted)"};
    case Policy::kParticipationOwnNoise:
      return {"gaussian per accepted upload (the device's own noise), "
              "maximum over devices",
              "zero-out one device's data (user-level)",
              "whoever sees the released models (not the gateway)"};
    case Policy::kParticipation:
    case Policy::kLocalDp:
      break;
  }
  return {"gaussian per accepted upload (the noise of the round's accepted "
          "uploads), maximum over devices",
          "zero-out one device's data (user-level)",
          "whoever sees the released models (not the gateway)"};
}

LedgerMeaning NetworkLedgerMeaning() {
  return {
      "network rdp per visit of the random walk (paper 002 Thm 4 with "
      "the corrected condition sigma >= 2*sqrt(2)*C*sqrt(a(a-1)); at "
      "each order the smaller of it and the local gaussian, which holds "
      "at every order; the device's own noise)",
      "replace-one device's data (user-level)",
      "each other enrolled device, which sees z only when the walk "
      "visits it (not the gateway, not job export)"};
}

LedgerMeaning RandomWalkExportMeaning() {
  return {
      "gaussian per accepted upload (the device's own noise), maximum "
      "over devices' local ledgers",
      "replace-one device's data",
      "whoever gets the exported model (a function of the uploads the "
      "gateway saw: only the local guarantee is claimed)"};
}

LedgerMeaning LocalLedgerMeaning() {
  return {"gaussian per accepted upload (the device's own noise)",
          "replace-one device's data",
          "the gateway, which sees every accepted upload"};
}

EpsilonReport DescribeLedger(const LedgerMeaning& meaning, double epsilon,
                             double delta, double order,
                             Conversion conversion, const std::string& subject,
                             Policy policy, uint64_t compositions) {
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
