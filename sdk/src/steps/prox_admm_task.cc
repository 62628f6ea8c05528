// Task adapter of paper 002 Alg. 3 (job "prox-admm", ALGORITHM_FEDERATED_
// PRIVATE_ADMM): the RoundTask's FederatedAdmmParams -> ProxAdmmParams.
#include "algorithm_task.h"

namespace edgeadmm::internal {

// Paper 002, Alg. 3: lambda in (0, 1], gamma > 0, C > 0, sigma >= 0.
bool ValidProxAdmmParams(const edgeadmm_wire_RoundTask& h) {
  const edgeadmm_wire_FederatedAdmmParams& p = h.params.federated;
  return PositiveFinite(p.lambda) && p.lambda <= 1.0 &&
         PositiveFinite(p.gamma) && PositiveFinite(p.clip) &&
         NonNegativeFinite(p.sigma);
}

// Paper 002 Alg. 3 local step (eqs. 6-7 with clipping), prox_admm_step.h.
Status RunProxAdmmTask(const TaskInput& task, LocalTrainer& trainer,
                       Span<Real> upload, TaskOutput& /*out*/) {
  const edgeadmm_wire_RoundTask& h = task.header;
  ProxAdmmParams params;
  params.lambda = ToReal(h.params.federated.lambda);
  params.step = ToReal(h.params.federated.gamma);
  params.clip = ToRealDown(h.params.federated.clip);  // real.h
  params.sigma =
      DeviceAddsNoise(h) ? ToRealUp(h.params.federated.sigma) : Real{0};
  // Whether u_i takes the noise too (the aggregator's policy decides).
  params.noise_in_state = h.params.federated.noise_in_state;
  return RunProxAdmm(trainer, params, h.round_id, task.model, upload).status();
}

}  // namespace edgeadmm::internal
