#include "edgeadmm/algorithms/random_walk_admm.h"

#include <cmath>

#include "edgeadmm/privacy/network_rdp.h"
#include "edgeadmm/privacy/rdp_orders.h"

namespace edgeadmm::algorithms {

host::Error RandomWalkAdmm::Resolve(jobs::JobConfig& c) const {
  if (c.policy == privacy::Policy::kParticipationOwnNoise) {
    // Alg. 4 as printed: u_i += 2λ(Clip(x − z, C) + η/2), the noise kept.
    c.noise_in_state = true;
  }
  // The central ledgers charge the local curve (ChargesLocalAsCentral): with
  // the RDP conversion the central ε of a device is exactly its local ε.
  c.accountant = jobs::CentralAccountant::kRdp;
  return host::Error::Ok();
}

host::Error RandomWalkAdmm::Validate(const jobs::JobConfig& c) const {
  if (c.policy != privacy::Policy::kParticipationOwnNoise) {
    return host::Error::InvalidArgument(
        "privacy.policy: random-walk-admm runs under participation-own-noise "
        "(each step carries only the holder's own noise; docs/privacy.md)");
  }
  if (c.sampling != jobs::SamplingScheme::kFixed || c.m != 1 || c.m_min != 1) {
    return host::Error::InvalidArgument(
        "sampling: random-walk-admm needs scheme = \"fixed\", m = 1, "
        "m_min = 1 (one uniformly drawn holder per step)");
  }
  if (c.sampling_seed != 0) {
    // Thm 4 averages over the walk's path: nobody may recompute it.
    return host::Error::InvalidArgument(
        "sampling.seed: not allowed for random-walk-admm (the network "
        "guarantee needs a path the devices cannot recompute)");
  }
  if (c.noise_planned()) {
    return host::Error::InvalidArgument(
        "privacy.target_epsilon: not planned for random-walk-admm; give "
        "privacy.sigma");
  }
  if (c.sigma > 0) {
    bool any = false;
    for (double alpha : privacy::OrderGrid::Default().orders()) {
      any = any || privacy::NetworkConditionHolds(alpha, c.sigma / c.clip);
    }
    if (!any) {
      return host::Error::InvalidArgument(
          "privacy.sigma: no Renyi order meets paper 002 Thm 4's condition "
          "sigma >= 2*sqrt(2)*C*sqrt(a(a-1)) (at a = 1.1: sigma/C >= " +
          std::to_string(2 * std::sqrt(2.0) * std::sqrt(1.1 * 0.1)) + ")");
    }
  }
  return host::Error::Ok();
}

Status RandomWalkAdmm::ApplyRound(
    const jobs::JobConfig& c, int64_t n,
    const std::vector<std::vector<double>>& uploads, RoundNoise& noise,
    ServerModel& model) const {
  // Alg. 4: ẑ += (1/n)(u_{k+1,i} − u_{k,i}), z = prox_{γr}(ẑ): prox-admm's
  // update with the holder's upload alone.
  if (uploads.size() != 1) return Status::InvalidArgument();
  return prox_.ApplyRound(c, n, uploads, noise, model);
}

std::vector<double> RandomWalkAdmm::UnchargedNetworkRdp(
    const jobs::JobConfig& c, int64_t n,
    const std::vector<double>& orders) const {
  return privacy::RandomWalkObserverCurve(orders, c.sigma / c.clip, n);
}

privacy::LedgerMeaning RandomWalkAdmm::CentralMeaning(
    const jobs::JobConfig& /*config*/) const {
  return privacy::RandomWalkLedgerMeaning();
}

}  // namespace edgeadmm::algorithms
