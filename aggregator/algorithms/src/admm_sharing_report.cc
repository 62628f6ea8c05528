// admm-sharing's parts of the job reports: every party's planned privacy
// and what the gateway's test score is (algorithms::ReportSections).
#include <string>
#include <vector>

#include "edgeadmm/algorithms/admm_sharing.h"
#include "edgeadmm/privacy/epsilon_report.h"

namespace edgeadmm::algorithms {

std::string SharingPlanJson(const jobs::JobConfig& config) {
  host::ErrorOr<std::vector<SharingPartyPrivacy>> plan =
      PlanSharingPrivacy(config);
  if (!plan.ok()) return "null";
  static constexpr const char* kModes[] = {"none", "paper", "rigorous"};
  using privacy::FormatNumber;
  std::string out =
      "{\"released\": \"the broadcast (v, y), not a model: "
      "each party keeps its x_m\", \"parties\": [";
  for (const SharingPartyPrivacy& p : *plan) {
    out += std::string(p.party ? ", " : "") +
           "{\"party\": " + std::to_string(p.party) +
           ", \"first_column\": " + std::to_string(p.first_column) +
           ", \"columns\": " + std::to_string(p.columns) + ", \"mode\": \"" +
           kModes[static_cast<int>(p.mode)] +
           "\", \"sigma\": " + FormatNumber(p.sigma) +
           ", \"sensitivity\": " + FormatNumber(p.sensitivity) +
           ", \"epsilon\": " + FormatNumber(p.epsilon) +
           ", \"delta\": " + FormatNumber(p.delta) +
           ", \"step_epsilon\": " + FormatNumber(p.step_epsilon) +
           ", \"step_delta\": " + FormatNumber(p.step_delta) +
           ", \"relation\": \"" + p.relation + "\", \"conversion\": \"" +
           p.conversion + "\", \"score_release\": \"" + p.score_release +
           "\", \"score_sigma\": " + FormatNumber(p.score_sigma) +
           ", \"score_sensitivity\": " + FormatNumber(p.score_sensitivity) +
           ", \"score_epsilon\": " + FormatNumber(p.score_epsilon) + "}";
  }
  return out + "]}";
}

ReportSection AdmmSharing::PlanSection(const jobs::JobConfig& config) const {
  ReportSection section;
  section.key = "admm_sharing";
  section.json = SharingPlanJson(config);
  section.text =
      "admm-sharing plan per party (at job creation, for job.rounds "
      "iterations): " +
      section.json + "\n";
  return section;
}

const char* AdmmSharing::TestScoreMeaning() const {
  return "the gateway's score of the sum of the parties' partial scores "
         "(admm-sharing scoring phase)";
}

}  // namespace edgeadmm::algorithms
