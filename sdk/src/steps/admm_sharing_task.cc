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
// its `columns` (FAILED_PRECONDITION otherwise). RunAdmmSharingTask takes
// the whole vectors; Begin/FinishAdmmSharingStream run the same step for a
// streaming client, which feeds the rows in blocks between them
// (DeviceClient with stream_rows; docs/sdk.md, "Streaming party").
#include "algorithm_task.h"

namespace edgeadmm::internal {

namespace {

// The scoring phase: only at t = T, N + score_records within the wire's
// vector limit, with gaussian (sigma, Delta > 0) or exact (both 0) noise.
bool ValidScoreParams(const edgeadmm_wire_SharingParams& p) {
  if (p.score_records == 0) {
    return p.score_noise == 0 && p.score_sigma == 0.0 &&
           p.score_sensitivity == 0.0;
  }
  const bool noise_ok =
      p.score_noise == 1
          ? PositiveFinite(p.score_sigma) && PositiveFinite(p.score_sensitivity)
          : p.score_noise == 2 && p.score_sigma == 0.0 &&
                p.score_sensitivity == 0.0;
  return noise_ok && p.iteration == p.rounds &&
         static_cast<uint64_t>(p.records) + p.score_records <=
             wire::kMaxRecordDimension;
}

}  // namespace

// M >= 2 parties, m < M, a column block, N = the task's dimension (u_m and y
// are N long), rho, lambda > 0, a known noise mode with sigma > 0 (0 for
// none), the sensitivity only for rigorous (> 0), 1-based t <= T, and the
// scoring phase's fields.
bool ValidAdmmSharingParams(const edgeadmm_wire_RoundTask& h) {
  const edgeadmm_wire_SharingParams& p = h.params.sharing_params;
  const bool noise_ok = p.noise == 0 ? p.sigma == 0.0 && p.sensitivity == 0.0
                        : p.noise == 1
                            ? PositiveFinite(p.sigma) && p.sensitivity == 0.0
                            : p.noise == 2 && PositiveFinite(p.sigma) &&
                                  PositiveFinite(p.sensitivity);
  return p.parties >= 2 && p.party < p.parties && p.columns >= 1 &&
         p.records >= 1 && p.records == h.dimension && PositiveFinite(p.rho) &&
         PositiveFinite(p.lambda) && noise_ok && p.iteration >= 1 &&
         p.rounds >= p.iteration && ValidScoreParams(p);
}

size_t AdmmSharingScoreRecords(const edgeadmm_wire_RoundTask& h) {
  return h.which_params == edgeadmm_wire_RoundTask_sharing_params_tag
             ? h.params.sharing_params.score_records
             : 0;
}

namespace {

// The checks every admm-sharing step makes, whole or streamed, and the
// task's constants. `scored`: the scoring phase's test records (0: none).
Status SharingSetup(const edgeadmm_wire_RoundTask& h, size_t samples,
                    const DatasetView* test, const LocalTrainer& trainer,
                    SharingTaskParams& params, SharingScoreParams& score) {
  const edgeadmm_wire_SharingParams& w = h.params.sharing_params;
  if (w.records != samples) return Status::FailedPrecondition();
  if (w.columns != trainer.state().primary.size()) {
    return Status::FailedPrecondition();  // not this party's column block
  }
  // A device that missed an iteration cannot rejoin (the barrier); a
  // repeated one is the client's (it resends its persisted upload).
  if (trainer.state().local_iteration + 1 != w.iteration) {
    return Status::FailedPrecondition();
  }
  params.rho = static_cast<Real>(w.rho);
  params.lambda = static_cast<Real>(w.lambda);
  params.noise.mode = static_cast<SharingNoise>(w.noise);
  params.noise.sigma = static_cast<Real>(w.sigma);
  params.sensitivity = static_cast<Real>(w.sensitivity);
  if (w.score_records == 0) return Status::Ok();
  // The scoring phase: this party's column block of the K test records.
  if (test == nullptr || test->samples() != w.score_records ||
      test->dim() != w.columns) {
    return Status::FailedPrecondition();
  }
  score.noise = static_cast<SharingScoreNoise>(w.score_noise);
  score.sigma = static_cast<Real>(w.score_sigma);
  score.sensitivity = static_cast<Real>(w.score_sensitivity);
  return Status::Ok();
}

}  // namespace

Status RunAdmmSharingTask(const TaskInput& task, LocalTrainer& trainer,
                          Span<Real> upload, TaskOutput& /*out*/) {
  const edgeadmm_wire_RoundTask& h = task.header;
  const size_t scored = h.params.sharing_params.score_records;
  if (upload.size() != task.samples + scored ||
      task.model.size() != task.samples ||
      task.auxiliary.size() != task.samples) {
    return Status::FailedPrecondition();
  }
  SharingTaskParams params;
  SharingScoreParams score;
  EDGEADMM_TRY(
      SharingSetup(h, task.samples, task.test_data, trainer, params, score));
  if (scored == 0) {
    return RunAdmmSharing(trainer, params, h.round_id, task.model,
                          task.auxiliary, upload)
        .status();
  }
  const DatasetView& test = *task.test_data;
  const Span<const Real> test_rows(test.Row(0).data(),
                                   test.samples() * test.dim());
  return RunAdmmSharing(trainer, params, score, h.round_id, task.model,
                        task.auxiliary, test_rows, upload)
      .status();
}

Status BeginAdmmSharingStream(const edgeadmm_wire_RoundTask& h,
                              LocalTrainer& trainer) {
  return BeginSharingStream(trainer, h.round_id);
}

Status AccumulateAdmmSharingStream(LocalTrainer& trainer, bool model,
                                   size_t first_row, Span<const Real> values,
                                   Span<const Real> zeros) {
  return AccumulateSharingStream(trainer,
                                 model ? AdmmSharingStep::Vector::kModel
                                       : AdmmSharingStep::Vector::kAuxiliary,
                                 first_row, values, zeros);
}

Status FinishAdmmSharingStream(const edgeadmm_wire_RoundTask& h, size_t samples,
                               const DatasetView* test_data,
                               LocalTrainer& trainer, ByteSpan key,
                               StreamPlan& plan) {
  SharingTaskParams params;
  SharingScoreParams score;
  EDGEADMM_TRY(SharingSetup(h, samples, test_data, trainer, params, score));
  const size_t scored = h.params.sharing_params.score_records;
  const Span<const Real> test_rows =
      scored > 0 ? Span<const Real>(test_data->Row(0).data(),
                                    test_data->samples() * test_data->dim())
                 : Span<const Real>();
  EDGEADMM_TRY(FinishSharingStream(trainer, params,
                                   scored > 0 ? &score : nullptr, h.round_id,
                                   test_rows, key)
                   .status());
  plan.score_rows = scored;
  plan.share_sigma =
      params.noise.mode == SharingNoise::kRigorous ? params.noise.sigma : 0;
  plan.score_sigma = scored > 0 && score.noise == SharingScoreNoise::kGaussian
                         ? score.sigma
                         : 0;
  return Status::Ok();
}

}  // namespace edgeadmm::internal
