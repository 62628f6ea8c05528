// The device's view of a secure-aggregation round (RoundTask field 20,
// SecureAggregationPlan; docs/protocol.md, "Secure aggregation in a job"):
// the distributed discrete Gaussian plan the device encodes its update with
// (ddg_encoder.h) and the round's public rotation seed. The wire codec
// (wire/round_task.h) cannot check the plan (it stands below the secagg
// unit); this check runs with the params check right after a task is
// decoded (ValidateTaskParams, on the device and in the gateway's encoder),
// so a participating task with a plan the device cannot run is refused.
#pragma once

#include <edgeadmm.pb.h>

#include <cstddef>

#include "edgeadmm/secagg/ddg_plan.h"
#include "edgeadmm/span.h"
#include "edgeadmm/status.h"

namespace edgeadmm {

struct SecureAggregationTask {
  static constexpr size_t kSeedBytes = 32;

  bool enabled = false;  // the task carries a plan
  DdgRoundPlan plan;     // plan.dimension = the task's dimension
  std::byte rotation_seed[kSeedBytes] = {};

  ConstByteSpan seed() const {
    return ConstByteSpan(rotation_seed, kSeedBytes);
  }
};

// out = the task's plan (enabled = false and OK when it carries none).
// INVALID_ARGUMENT when ValidateDdgRoundPlan refuses the plan (with d = the
// task's dimension and the message's clip), DiscreteGaussian::Create
// refuses its sigma_g^2 (the encoder's noise), or the seed is all zeros: nanopb
// reads an empty fixed-length seed as 32 zero bytes and refuses any other
// length than 0 and 32, so an all-zero seed is how a missing one arrives
// (a fresh random seed is all zeros with probability 2^-256).
Status SecureAggregationTaskOf(const edgeadmm_wire_RoundTask& task,
                               SecureAggregationTask& out);

// The Gaussian mechanism the device's own noise gives in such a round, for
// its local ledger (DevicePrivacyLedger::Charge; docs/privacy.md, "The
// device's ledger in a secure-aggregation round"): the rounded vector has
// ||z||_2 <= B = DdgPlanNormBound(plan) grid steps, so two inputs give
// vectors at most 2B apart (replace-one; zero-out needs only B), and the
// noise is N_Z(0, sigma_g^2) per coordinate with sigma_g^2 = num/den grid
// steps. INVALID_ARGUMENT for a task without a plan.
Status SecureAggregationChargeOf(const SecureAggregationTask& task,
                                 double& sensitivity, double& noise_std);

}  // namespace edgeadmm
