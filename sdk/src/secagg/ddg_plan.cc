// The distributed discrete Gaussian's per-round plan (see ddg_plan.h).
#include "edgeadmm/secagg/ddg_plan.h"

#include <cmath>

#include "edgeadmm/secagg/ddg_encoding.h"

namespace edgeadmm {
namespace {

double NormBound(const DdgRoundPlan& plan) {
  return DdgRoundedNormBound(plan.clip / plan.gamma,
                             DdgPaddedDimension(plan.dimension), plan.beta);
}

}  // namespace

Status ValidateDdgRoundPlan(const DdgRoundPlan& plan) {
  const double kClipLimit = 536870912.0;   // 2^29
  const double kNormLimit = 2147483648.0;  // 2^31
  if (plan.bits < 1 || plan.bits > 32) return Status::InvalidArgument();
  if (!std::isfinite(plan.gamma) || !(plan.gamma > 0)) {
    return Status::InvalidArgument();
  }
  if (plan.sigma2_num == 0 || plan.sigma2_den == 0 ||
      plan.sigma2_num > UINT64_MAX / 4 ||
      4 * plan.sigma2_num < plan.sigma2_den) {
    return Status::InvalidArgument();
  }
  if (!(plan.beta > 0 && plan.beta < 1)) return Status::InvalidArgument();
  if (plan.dimension == 0 || DdgPaddedDimension(plan.dimension) == 0 ||
      DdgPaddedDimension(plan.dimension) > (size_t{1} << 30)) {
    return Status::InvalidArgument();
  }
  if (!std::isfinite(plan.clip) || !(plan.clip > 0) ||
      !(plan.clip / plan.gamma < kClipLimit)) {
    return Status::InvalidArgument();
  }
  const double bound = NormBound(plan);
  if (!(bound > 0 && bound < kNormLimit)) return Status::InvalidArgument();
  return Status::Ok();
}

double DdgPlanNormBound(const DdgRoundPlan& plan) {
  return ValidateDdgRoundPlan(plan).ok() ? NormBound(plan) : 0.0;
}

}  // namespace edgeadmm
