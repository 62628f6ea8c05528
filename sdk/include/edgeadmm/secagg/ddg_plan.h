// The distributed discrete Gaussian's per-round plan: what the gateway
// sends each device of a secure-aggregation round so that it can encode
// its clipped update (ddg_encoding.h) and add its noise. The gateway makes
// it from its parameter choice
// (aggregator/secure_aggregation/include/edgeadmm/secure_aggregation/ddg_parameters.h,
// PlanFromDdgParameters); the device checks it with ValidateDdgRoundPlan
// before encoding and computes the rounding's norm bound itself
// (DdgPlanNormBound), so a gateway cannot make it round to a larger norm
// than the clip, the grid and beta imply. On the wire it is
// RoundTask.secure_aggregation (secure_aggregation_task.h reads it).
#pragma once

#include <cstdint>

#include "edgeadmm/status.h"

namespace edgeadmm {

struct DdgRoundPlan {
  uint32_t bits = 0;        // the modulus 2^bits, 1..32
  double gamma = 0;         // the grid step
  uint64_t sigma2_num = 0;  // each device's sigma_g^2 = num/den, in grid
  uint64_t sigma2_den = 1;  // steps (DiscreteGaussian::Create's form)
  double beta = 0;          // the conditional rounding's beta
  uint32_t dimension = 0;   // d, before padding
  double clip = 0;          // C, the L2 clip of the update
};

// OK when a device can run the plan: bits in 1..32; gamma finite and > 0;
// num, den >= 1 with num/den >= 1/4 (sigma_g >= 1/2, where the accountant's
// bound holds; compared exactly as 4 num >= den); 0 < beta < 1; d >= 1
// with a padded dimension <= 2^30; clip finite, > 0, and clip/gamma < 2^29
// (inside ConditionalRandomizedRound's range); the norm bound in (0, 2^31).
// INVALID_ARGUMENT otherwise. (The sampler's own range is checked when the
// device makes its DiscreteGaussian from num/den.)
Status ValidateDdgRoundPlan(const DdgRoundPlan& plan);

// The norm bound the device rounds to: DdgRoundedNormBound(clip/gamma,
// d', beta); 0 for a plan ValidateDdgRoundPlan refuses.
double DdgPlanNormBound(const DdgRoundPlan& plan);

}  // namespace edgeadmm
