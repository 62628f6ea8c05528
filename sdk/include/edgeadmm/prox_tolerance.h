// The prox solvers' KKT-residual tolerance in the compute type.
//
// EDGEADMM_CFG_NEWTON_TOLERANCE (1e-10) is below float32's resolution, so a
// float build would never stop: the tolerance is at least
// EDGEADMM_CFG_NEWTON_TOLERANCE_EPSILONS machine epsilons of Real. In double
// the floor (~3.6e-15) is below 1e-10, so double builds are unchanged.
#pragma once

#include <limits>

#include "edgeadmm/config.h"
#include "edgeadmm/real.h"

namespace edgeadmm::internal {

constexpr Real ProxTolerance() {
  constexpr Real configured = ToReal(EDGEADMM_CFG_NEWTON_TOLERANCE);
  constexpr Real floor = Real{EDGEADMM_CFG_NEWTON_TOLERANCE_EPSILONS} *
                         std::numeric_limits<Real>::epsilon();
  return configured > floor ? configured : floor;
}

}  // namespace edgeadmm::internal
