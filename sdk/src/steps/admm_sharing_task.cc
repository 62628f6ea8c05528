// Task adapter of papers 000/003's ADMM sharing (job "admm-sharing",
// ALGORITHM_SHARING) for party m. The task carries the job's public
// constants, the party's column block and, as N-vectors (N = the device's
// record count = the task's dimension), u_m = Σ_{k≠m} s_k − z (model: the
// gateway already subtracted this party's own released share, so a noisy
// rigorous share needs no device copy) and y (auxiliary). The device's data
// must be exactly its column block of the job's N records: its dimension
// must equal `columns` (FAILED_PRECONDITION otherwise). The upload is the
// share s_m = D_m x̃_m (UPDATE_KIND_SHARE). The last iteration of a job
// with a scoring phase (score_records = K > 0) appends the partial scores
// D_test,m x̃_m(T) of the device's test records (UPDATE_KIND_SHARE_AND_
// SCORES, N + K values): the device must hold exactly K test records of
// its `columns` (FAILED_PRECONDITION otherwise). Linux devices: the vectors are
// whole (an MCU would stream them in row blocks; not served).
#include "algorithm_task.h"

namespace edgeadmm::internal {

size_t AdmmSharingScoreRecords(const edgeadmm_wire_RoundTask& h) {
  return h.which_params == edgeadmm_wire_RoundTask_sharing_params_tag
             ? h.params.sharing_params.score_records
             : 0;
}

Status RunAdmmSharingTask(const TaskInput& task, LocalTrainer& trainer,
                          Span<Real> upload, TaskOutput& /*out*/) {
  const edgeadmm_wire_RoundTask& h = task.header;
  const edgeadmm_wire_SharingParams& w = h.params.sharing_params;
  const size_t scored = w.score_records;
  if (w.records != task.samples || upload.size() != task.samples + scored ||
      task.model.size() != task.samples ||
      task.auxiliary.size() != task.samples) {
    return Status::FailedPrecondition();
  }
  if (w.columns != trainer.state().primary.size()) {
    return Status::FailedPrecondition();  // not this party's column block
  }
  // A device that missed an iteration cannot rejoin (the barrier); a
  // repeated one is the client's (it resends its persisted upload).
  if (trainer.state().local_iteration + 1 != w.iteration) {
    return Status::FailedPrecondition();
  }
  SharingTaskParams params;
  params.rho = static_cast<Real>(w.rho);
  params.lambda = static_cast<Real>(w.lambda);
  params.noise.mode = static_cast<SharingNoise>(w.noise);
  params.noise.sigma = static_cast<Real>(w.sigma);
  params.sensitivity = static_cast<Real>(w.sensitivity);
  if (scored == 0) {
    return trainer
        .RunAdmmSharing(params, h.round_id, task.model, task.auxiliary, upload)
        .status();
  }
  // The scoring phase: this party's column block of the K test records.
  const DatasetView* test = task.test_data;
  if (test == nullptr || test->samples() != scored ||
      test->dim() != w.columns) {
    return Status::FailedPrecondition();
  }
  SharingScoreParams score;
  score.noise = static_cast<SharingScoreNoise>(w.score_noise);
  score.sigma = static_cast<Real>(w.score_sigma);
  score.sensitivity = static_cast<Real>(w.score_sensitivity);
  const Span<const Real> test_rows(test->Row(0).data(),
                                   test->samples() * test->dim());
  return trainer
      .RunAdmmSharing(params, score, h.round_id, task.model, task.auxiliary,
                      test_rows, upload)
      .status();
}

}  // namespace edgeadmm::internal
