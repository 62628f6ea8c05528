// The device's view of a secure-aggregation round (see
// secure_aggregation_task.h).
#include "edgeadmm/secure_aggregation_task.h"

#include <cmath>

#include "edgeadmm/discrete_gaussian_sampler.h"
#include "edgeadmm/result.h"

namespace edgeadmm {

Status SecureAggregationTaskOf(const edgeadmm_wire_RoundTask& task,
                               SecureAggregationTask& out) {
  out = SecureAggregationTask();
  if (!task.has_secure_aggregation) return Status::Ok();
  const edgeadmm_wire_SecureAggregationPlan& wire = task.secure_aggregation;
  static_assert(sizeof(wire.rotation_seed) == SecureAggregationTask::kSeedBytes,
                "the schema's seed is 32 bytes");
  DdgRoundPlan plan;
  plan.bits = wire.bits;
  plan.gamma = wire.gamma;
  plan.sigma2_num = wire.sigma2_num;
  plan.sigma2_den = wire.sigma2_den;
  plan.beta = wire.beta;
  plan.dimension = task.dimension;
  plan.clip = wire.clip;
  EDGEADMM_TRY(ValidateDdgRoundPlan(plan));
  // The noise the encoder will draw: refused now, not after the step.
  if (!DiscreteGaussian::Create(plan.sigma2_num, plan.sigma2_den).ok()) {
    return Status::InvalidArgument();
  }
  bool any = false;
  for (size_t i = 0; i < SecureAggregationTask::kSeedBytes; ++i) {
    out.rotation_seed[i] = static_cast<std::byte>(wire.rotation_seed[i]);
    any = any || wire.rotation_seed[i] != 0;
  }
  if (!any) {
    out = SecureAggregationTask();
    return Status::InvalidArgument();
  }
  out.enabled = true;
  out.plan = plan;
  return Status::Ok();
}

Status SecureAggregationChargeOf(const SecureAggregationTask& task,
                                 double& sensitivity, double& noise_std) {
  sensitivity = 0;
  noise_std = 0;
  if (!task.enabled) return Status::InvalidArgument();
  const double bound = DdgPlanNormBound(task.plan);
  if (!(bound > 0)) return Status::InvalidArgument();
  sensitivity = 2 * bound;
  noise_std = std::sqrt(static_cast<double>(task.plan.sigma2_num) /
                        static_cast<double>(task.plan.sigma2_den));
  return Status::Ok();
}

}  // namespace edgeadmm
