// Task adapter of the DP-SGD / DP-FedAvg baseline (job "dp-sgd",
// ALGORITHM_DP_SGD): the RoundTask's DpSgdParams -> DpSgdParams.
#include "algorithm_task.h"

namespace edgeadmm::internal {

// eta > 0, E >= 1, C > 0, sigma >= 0 (dp_sgd_step.h).
bool ValidDpSgdParams(const edgeadmm_wire_RoundTask& h) {
  const edgeadmm_wire_DpSgdParams& p = h.params.dp_sgd;
  return PositiveFinite(p.learning_rate) && p.local_steps >= 1 &&
         PositiveFinite(p.clip) && NonNegativeFinite(p.sigma);
}

// DP-SGD / DP-FedAvg baseline: Clip(w - z, C) + N(0, sigma^2), dp_sgd_step.h.
Status RunDpSgdTask(const TaskInput& task, LocalTrainer& trainer,
                    Span<Real> upload, TaskOutput& /*out*/) {
  const edgeadmm_wire_RoundTask& h = task.header;
  const edgeadmm_wire_DpSgdParams& d = h.params.dp_sgd;
  DpSgdParams params;
  params.learning_rate = ToReal(d.learning_rate);
  params.local_steps = d.local_steps;
  params.clip = ToRealDown(d.clip);  // directed: real.h
  params.sigma = DeviceAddsNoise(h) ? ToRealUp(d.sigma) : Real{0};
  return RunDpSgd(trainer, params, h.round_id, task.model, upload).status();
}

}  // namespace edgeadmm::internal
