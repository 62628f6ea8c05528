// Task adapter of paper 004's DP-ADMM (job "dp-admm", ALGORITHM_DP_ADMM): the
// RoundTask's DpAdmmParams -> LinearizedAdmmParams, with the dual update of
// the previous iteration first.
#include <cstring>

#include "algorithm_task.h"
#include "edgeadmm/result.h"

namespace edgeadmm::internal {

// Paper 004, Thms 1, 3, 4: the schedule constants and eps in (0, 1],
// delta in (0, 1).
bool ValidLinearizedAdmmParams(const edgeadmm_wire_RoundTask& h) {
  const edgeadmm_wire_DpAdmmParams& p = h.params.dp_admm;
  // The raw integer: nanopb stores any value that arrived, and loading an
  // out-of-range one as the enum type is undefined behaviour.
  int32_t schedule = 0;
  static_assert(sizeof(p.schedule) == sizeof(schedule),
                "nanopb enums are int32");
  std::memcpy(&schedule, &p.schedule, sizeof(schedule));
  const bool schedule_ok =
      schedule == edgeadmm_wire_DpAdmmSchedule_DP_ADMM_SCHEDULE_CONVEX ||
      schedule == edgeadmm_wire_DpAdmmSchedule_DP_ADMM_SCHEDULE_SMOOTH;
  return schedule_ok && PositiveFinite(p.rho) &&
         NonNegativeFinite(p.reg_weight) && p.num_devices >= 1 &&
         PositiveFinite(p.d_w) && PositiveFinite(p.s1) &&
         NonNegativeFinite(p.s2) && NonNegativeFinite(p.s3) &&
         NonNegativeFinite(p.s4) && PositiveFinite(p.epsilon) &&
         p.epsilon <= 1.0 && PositiveFinite(p.delta) && p.delta < 1.0 &&
         NonNegativeFinite(p.clip) && p.max_records >= 1;
}

// Paper 004: (3d) with the new global model w^{k+1} = the task's model (the
// dual of the device's previous step), then (3a)-(3b) at iteration k+1;
// linearized_admm_step.h. The step sizes follow the device's own iteration
// count (equal to the task's k when the device takes part in every round).
Status RunLinearizedAdmmTask(const TaskInput& task, LocalTrainer& trainer,
                             Span<Real> upload, TaskOutput& /*out*/) {
  const edgeadmm_wire_RoundTask& h = task.header;
  const edgeadmm_wire_DpAdmmParams& d = h.params.dp_admm;
  // The aggregator charges every device for at most max_records records
  // (docs/privacy.md): a larger shard would be under-charged.
  if (task.samples > d.max_records) return Status::FailedPrecondition();
  // The step clips every per-example gradient to S1 (Lemma 1); a different
  // clip would make the sensitivity the aggregator charges wrong.
  if (d.clip != 0 && d.clip != d.s1) return Status::InvalidArgument();
  LinearizedAdmmParams params;
  params.rho = ToReal(d.rho);
  params.reg_weight = ToReal(d.reg_weight);
  params.providers = d.num_devices;
  params.schedule =
      d.schedule == edgeadmm_wire_DpAdmmSchedule_DP_ADMM_SCHEDULE_CONVEX
          ? LinearizedSchedule::kConvex
          : LinearizedSchedule::kSmooth;
  params.dw = ToReal(d.d_w);
  params.s1 = ToReal(d.s1);
  params.s2 = ToReal(d.s2);
  params.s3 = ToReal(d.s3);
  params.s4 = ToReal(d.s4);
  params.epsilon = d.epsilon;
  params.delta = d.delta;
  params.add_noise = !d.noiseless && DeviceAddsNoise(h);
  if (h.regularizer == edgeadmm_wire_Regularizer_REGULARIZER_L1) {
    params.regularizer.kind = RegularizerKind::kL1;
    params.regularizer.l1 = ToReal(h.regularizer_weight);
  } else if (h.regularizer == edgeadmm_wire_Regularizer_REGULARIZER_L2) {
    params.regularizer.kind = RegularizerKind::kL2;
    params.regularizer.l2 = ToReal(h.regularizer_weight);
  }
  if (trainer.state().local_iteration > 0) {
    EDGEADMM_TRY(ApplyLinearizedDual(trainer, params.rho, task.model));  // (3d)
  }
  return RunLinearizedAdmm(trainer, params, h.round_id, task.model, upload)
      .status();
}

}  // namespace edgeadmm::internal
