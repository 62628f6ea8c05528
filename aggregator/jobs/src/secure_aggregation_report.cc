#include "edgeadmm/jobs/secure_aggregation_report.h"

#include <cstdio>
#include <string>

#include "edgeadmm/jobs/secure_aggregation_plan.h"
#include "edgeadmm/privacy/epsilon_report.h"

namespace edgeadmm::jobs {
namespace {

std::string Json(double v) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.17g", v);
  return text;
}

std::string Text(double v) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.6g", v);
  return text;
}

}  // namespace

algorithms::ReportSection SecureAggregationSection(const JobConfig& c) {
  algorithms::ReportSection section;
  if (c.policy != privacy::Policy::kSecureAggregation) return section;
  section.key = "secure_aggregation";
  const auto plan = PlanSecureAggregation(c);
  if (!plan.ok()) {
    section.json =
        "{\"error\": " + privacy::JsonString(plan.error().message()) + "}";
    section.text =
        "secure aggregation: no plan (" + plan.error().message() + ")\n";
    return section;
  }
  const secure_aggregation::DdgParameters& d = plan->ddg;
  const std::string t = std::to_string(c.max_colluders);
  const std::string meaning =
      "distributed discrete gaussian, zero-out one device's data, RDP with "
      "the improved conversion, delta " +
      Text(c.delta) + ", against the gateway and any " + t +
      " colluding devices";
  section.json =
      "{\"cohort\": " + std::to_string(plan->cohort) +
      ", \"dropouts\": " + std::to_string(c.secure_aggregation.dropouts) +
      ", \"max_colluders\": " + t +
      ", \"neighbours\": " + std::to_string(plan->secagg.degree) +
      ", \"threshold\": " + std::to_string(plan->secagg.threshold) +
      ", \"bits\": " + std::to_string(d.bits) +
      ", \"gamma\": " + Json(d.gamma) + ", \"sigma\": " + Json(d.sigma) +
      ", \"sigma_grid\": " + Json(d.sigma_grid) +
      ", \"honest_devices\": " + std::to_string(d.honest_devices) +
      ", \"rounds\": " + std::to_string(c.rounds) +
      ", \"predicted_epsilon\": " + Json(d.epsilon) +
      ", \"predicted_epsilon_meaning\": " + privacy::JsonString(meaning) +
      ", \"log2_wrap\": " + Json(d.log2_wrap) + "}";
  section.text =
      "secure aggregation plan (m = " + std::to_string(plan->cohort) +
      ", D = " + std::to_string(c.secure_aggregation.dropouts) +
      " dropouts, t = " + t + " colluders):\n  masking graph: k = " +
      std::to_string(plan->secagg.degree) +
      " neighbours, threshold s = " + std::to_string(plan->secagg.threshold) +
      "\n  distributed discrete gaussian: b = " + std::to_string(d.bits) +
      " bits, gamma = " + Text(d.gamma) + ", sigma = " + Text(d.sigma) +
      " per device (" + Text(d.sigma_grid) +
      " on the grid), n_h = " + std::to_string(d.honest_devices) +
      " honest devices (m - D - t)\n  predicted epsilon over " +
      std::to_string(c.rounds) + " rounds: " + Text(d.epsilon) + " (" +
      meaning + ")\n  wrap bound per round: P(wrap) <= 2^" + Text(d.log2_wrap) +
      "\n";
  return section;
}

}  // namespace edgeadmm::jobs
