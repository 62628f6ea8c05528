// What one committed round of a secure-aggregation job charges a device
// (docs/privacy.md, "secure-aggregation"): the gateway and any t colluding
// devices see only the unmasked sum of the round's survivors, whose noise is
// the sum of at least n_h = m - D - t honest devices' discrete Gaussians
// (Kairouz, Liu, Steinke 2021, Thm. 2 with the tau term:
// privacy/distributed_discrete_gaussian.h), zero-out neighbours, RDP on
// the accountant's orders (the improved conversion: the PLD accountant has
// no distributed discrete Gaussian), charged to "central:<id>". The gateway
// never sees an upload alone, so the same sum bounds "local:<id>" too,
// there under replace-one like every local ledger (its lifetime sum across
// jobs is replace-one): both vectors are within the rounding's norm bound,
// so D2 and D1 double.
#pragma once

#include <vector>

#include "edgeadmm/jobs/job_config.h"
#include "edgeadmm/rounds/round_accountant.h"

namespace edgeadmm::rounds {

struct SecureRoundCharge {
  std::vector<double> rdp;        // one round, zero-out, accountant.orders()
  std::vector<double> local_rdp;  // the same round, replace-one
  // sqrt(n_h) sigma_g / D2: the ideal discrete Gaussian's multiplier, the
  // number stored with the round (descriptive; `rdp` is the charge).
  double noise_multiplier = 0;
};

// The charge of `config`'s plan (jobs::PlanSecureAggregation). Without a
// plan (a job ValidateJobConfig refuses) every order is +inf: never a
// smaller number than the mechanism's.
SecureRoundCharge SecureAggregationRoundCharge(
    const RoundAccountant& accountant, const jobs::JobConfig& config);

}  // namespace edgeadmm::rounds
