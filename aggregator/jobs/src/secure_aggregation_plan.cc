#include "edgeadmm/jobs/secure_aggregation_plan.h"

#include <string>

#include "edgeadmm/algorithms/registry.h"

namespace edgeadmm::jobs {
namespace {

host::Error Refuse(const std::string& what) {
  return host::Error::InvalidArgument(what);
}

// The masking graph: the given degree (checked by the graph's own rules)
// or the smallest that meets the default goals.
host::ErrorOr<secure_aggregation::SecAggParameters> ChooseGraph(
    const JobConfig& c) {
  secure_aggregation::SecAggGoal goal;
  goal.devices = static_cast<uint32_t>(c.m);
  goal.corrupt = static_cast<uint32_t>(c.max_colluders);
  goal.dropouts = static_cast<uint32_t>(c.secure_aggregation.dropouts);
  if (c.secure_aggregation.neighbours == 0) {
    const auto chosen = secure_aggregation::ChooseSecAggParameters(goal);
    if (!chosen) {
      return host::Error::OutOfRange(
          "secure_aggregation: no masking graph of at most 254 neighbours "
          "meets the security goals for m = " +
          std::to_string(c.m) + ", t = " + std::to_string(c.max_colluders) +
          ", D = " + std::to_string(c.secure_aggregation.dropouts));
    }
    return *chosen;
  }
  const int64_t k = c.secure_aggregation.neighbours;
  if (k < 1 || k > 254 || (k % 2 != 0 && k < c.m - 1)) {
    return Refuse(
        "secure_aggregation.neighbours: must be even in 2..254 (or >= m - 1 "
        "for the complete graph), or 0 to choose it");
  }
  return secure_aggregation::EvaluateSecAgg(goal, static_cast<uint32_t>(k));
}

}  // namespace

host::ErrorOr<SecureAggregationPlan> PlanSecureAggregation(const JobConfig& c) {
  if (c.policy != privacy::Policy::kSecureAggregation) {
    return Refuse("privacy.policy: not secure-aggregation");
  }
  const algorithms::Algorithm* algorithm = algorithms::Find(c.algorithm);
  if (algorithm == nullptr || algorithm->sum_rounds() == nullptr) {
    return Refuse(
        "privacy.policy: secure-aggregation needs an algorithm whose server "
        "update uses only the sum of the uploads");
  }
  const host::UploadBound bound = algorithm->HonestUpload(c);
  if (!bound.bounded() || !(bound.signal > 0)) {
    return Refuse(
        "privacy.policy: secure-aggregation needs uploads of bounded norm");
  }
  if (c.sampling != SamplingScheme::kFixed) {
    return Refuse(
        "sampling.scheme: secure-aggregation needs fixed cohorts (the "
        "masking graph is made for m devices)");
  }
  if (!(c.target_epsilon > 0)) {
    return Refuse(
        "privacy.target_epsilon: secure-aggregation plans its discrete "
        "noise from it (give target_epsilon, not sigma)");
  }
  const SecureAggregationConfig& s = c.secure_aggregation;
  if (s.dropouts < 0 || c.max_colluders + s.dropouts >= c.m) {
    return Refuse(
        "secure_aggregation.dropouts: must be >= 0 with max_colluders + "
        "dropouts < sampling.m (some honest device must survive)");
  }
  if (s.max_bits < 1 || s.max_bits > 32) {
    return Refuse("secure_aggregation.max_bits: must be in 1..32");
  }
  if (!(s.log2_wrap < 0)) {
    return Refuse("secure_aggregation.log2_wrap: must be < 0");
  }
  if (!(s.phase_seconds > 0)) {
    return Refuse("secure_aggregation.phase_seconds: must be > 0");
  }
  SecureAggregationPlan plan;
  EDGEADMM_HOST_TRY_ASSIGN(plan.secagg, ChooseGraph(c));
  secure_aggregation::DdgGoal goal;
  goal.epsilon = c.target_epsilon;
  goal.delta = c.delta;
  // RDP-accounted with the improved conversion whatever privacy.accountant
  // says: the PLD accountant has no distributed discrete Gaussian.
  goal.conversion = privacy::Conversion::kImproved;
  goal.rounds = static_cast<uint64_t>(c.rounds);
  goal.cohort = static_cast<uint32_t>(c.m);
  goal.colluders = static_cast<uint32_t>(c.max_colluders);
  goal.dropouts = static_cast<uint32_t>(s.dropouts);
  goal.dimension = static_cast<uint32_t>(algorithm->UploadLength(c));
  goal.clip = bound.signal;
  goal.max_bits = static_cast<uint32_t>(s.max_bits);
  goal.log2_wrap = s.log2_wrap;
  EDGEADMM_HOST_TRY_ASSIGN(plan.ddg,
                           secure_aggregation::ChooseDdgParameters(goal));
  EDGEADMM_HOST_TRY_ASSIGN(
      plan.round, secure_aggregation::PlanFromDdgParameters(plan.ddg, goal));
  plan.cohort = goal.cohort;
  plan.min_survivors = goal.cohort - goal.dropouts;
  plan.mask_length = static_cast<uint32_t>(plan.ddg.padded_dimension);
  return plan;
}

}  // namespace edgeadmm::jobs
