#include "edgeadmm/rounds/secure_round_charge.h"

#include <cmath>
#include <limits>

#include "edgeadmm/jobs/secure_aggregation_plan.h"
#include "edgeadmm/privacy/distributed_discrete_gaussian.h"

namespace edgeadmm::rounds {

SecureRoundCharge SecureAggregationRoundCharge(
    const RoundAccountant& accountant, const jobs::JobConfig& config) {
  SecureRoundCharge charge;
  charge.rdp.assign(accountant.order_count(),
                    std::numeric_limits<double>::infinity());
  charge.local_rdp = charge.rdp;
  const auto plan = jobs::PlanSecureAggregation(config);
  if (!plan.ok()) return charge;
  const privacy::Mechanism m = secure_aggregation::DdgRoundMechanism(plan->ddg);
  privacy::DistributedDiscreteGaussian ddg;
  ddg.l2_sensitivity = m.sensitivity;
  ddg.l1_sensitivity = m.l1_sensitivity;
  ddg.sigma = plan->ddg.sigma_grid;
  ddg.devices = m.devices;  // n_h = m - D - t
  ddg.dimension = m.dimension;
  const auto curve =
      privacy::DistributedDiscreteGaussianRdpCurve(ddg, accountant.orders());
  // Replace-one: ||z - z'|| <= 2 D2 and ||z - z'||_1 <= 2 D1.
  privacy::DistributedDiscreteGaussian replace = ddg;
  replace.l2_sensitivity = 2 * ddg.l2_sensitivity;
  replace.l1_sensitivity = 2 * ddg.l1_sensitivity;
  const auto local = privacy::DistributedDiscreteGaussianRdpCurve(
      replace, accountant.orders());
  if (!curve.ok() || !local.ok()) return charge;
  charge.rdp = *curve;
  charge.local_rdp = *local;
  charge.noise_multiplier = m.NoiseMultiplier();
  return charge;
}

}  // namespace edgeadmm::rounds
