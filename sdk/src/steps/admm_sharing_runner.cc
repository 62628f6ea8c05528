#include "edgeadmm/admm_sharing_runner.h"

#include <cmath>

#include "edgeadmm/share_noise_stream.h"
#include "edgeadmm/vector_checks.h"

namespace edgeadmm {
namespace {

AdmmSharingRunnerState* StateOf(LocalTrainer& trainer) {
  return static_cast<AdmmSharingRunnerState*>(
      trainer.StepObject(AlgorithmKind::kAdmmSharing));
}

// The party's rows D_m (N x dim, row-major).
Span<const Real> Features(const LocalTrainer& trainer) {
  const DatasetView& data = trainer.data();
  return Span<const Real>(data.Row(0).data(), data.samples() * data.dim());
}

// The bounds that make the charged sensitivities true (docs/privacy.md,
// "Bounded shares"): a released share (rigorous) and the released partial
// scores (gaussian) are clipped to half the Δ the ledger charges, on the
// grid they are released on, so any change of the party's data moves the
// released integers by at most Δ/g (Δ_s/g_s) in L2.
SharingClip SharingClipFor(const SharingTaskParams& params,
                           const SharingScoreParams* score) {
  SharingClip clip;
  if (params.noise.mode == SharingNoise::kRigorous) {
    clip.share = params.sensitivity / 2;
    clip.share_sigma = params.noise.sigma;
  }
  if (score != nullptr && score->noise == SharingScoreNoise::kGaussian) {
    clip.score = score->sensitivity / 2;
    clip.score_sigma = score->sigma;
  }
  return clip;
}

// The checks of a step and the one charge it will make (into `s`): noise
// and score params, budget. The caller has checked the round.
Status PlanCharge(LocalTrainer& trainer, AdmmSharingRunnerState& s,
                  const SharingTaskParams& params,
                  const SharingScoreParams* score, uint64_t round) {
  EDGEADMM_TRY(params.noise.Validate());
  if (score != nullptr) EDGEADMM_TRY(score->Validate());
  const bool share_charged = params.noise.mode == SharingNoise::kRigorous;
  if (share_charged && !IsPositive(params.sensitivity)) {
    return Status::InvalidArgument();
  }
  const bool score_charged =
      score != nullptr && score->noise == SharingScoreNoise::kGaussian;
  // A release no Gaussian covers (a share without rigorous noise, an exact
  // score) needs allow_unaccounted_steps; the Gaussian ones are charged.
  const bool uncovered =
      !share_charged ||
      (score != nullptr && score->noise == SharingScoreNoise::kExact);
  if (uncovered && !trainer.allow_unaccounted_steps()) {
    return Status::FailedPrecondition();
  }
  // One charge for the step: the share's Gaussian (Δ, σ) alone, or with
  // the scores' (Δ_s, σ_s) as the single Gaussian of the same RDP curve,
  // α·((Δ/σ)² + (Δ_s/σ_s)²)/2 (Mironov 2017, Prop. 1 and 7).
  Real sensitivity = params.sensitivity;
  Real noise_std = params.noise.sigma;
  if (score_charged) {
    const Real r_score = score->sensitivity / score->sigma;
    const Real r_share =
        share_charged ? params.sensitivity / params.noise.sigma : Real(0);
    sensitivity = std::sqrt(r_share * r_share + r_score * r_score);
    noise_std = 1;
  }
  const bool accounted = share_charged || score_charged;
  EDGEADMM_TRY(trainer.CheckBudget(accounted, sensitivity, noise_std));
  s.accounted = accounted;
  s.sensitivity = sensitivity;
  s.noise_std = noise_std;
  s.round = round;
  return Status::Ok();
}

// Sets x̃_m in the state and makes the planned charge.
Status Commit(LocalTrainer& trainer, AdmmSharingRunnerState& s) {
  s.pending = false;
  const Span<const Real> x = s.step.x_tilde();
  const Span<Real> primary = trainer.primary();
  for (size_t c = 0; c < x.size(); ++c) primary[c] = x[c];
  return trainer.FinishStep(s.accounted, s.sensitivity, s.noise_std, s.round);
}

// The step of both RunAdmmSharing overloads (score null: no scoring phase;
// upload then N entries).
Result<SharingSolveReport> SharingStep(
    LocalTrainer& trainer, const SharingTaskParams& params,
    const SharingScoreParams* score, uint64_t round, Span<const Real> u,
    Span<const Real> y, Span<const Real> test_rows, Span<Real> upload) {
  const size_t n = trainer.data().samples();
  if (upload.size() < n) return Status::InvalidArgument();
  const Span<Real> share = upload.first(n);
  const Span<Real> scores = upload.subspan(n, upload.size() - n);
  // admm-sharing uploads a share: one value per record.
  EDGEADMM_TRY(trainer.BeginStep(AlgorithmKind::kAdmmSharing, round, share, n));
  AdmmSharingRunnerState& s = *StateOf(trainer);
  if (u.size() != n || y.size() != n || (score == nullptr && !scores.empty()) ||
      (score != nullptr &&
       (scores.empty() ||
        test_rows.size() != scores.size() * trainer.data().dim()))) {
    return Status::InvalidArgument();
  }
  EDGEADMM_TRY(PlanCharge(trainer, s, params, score, round));
  Workspace ws(s.workspace);
  EDGEADMM_TRY(s.step.Init(ws, Features(trainer), n, trainer.data().dim(),
                           params.lambda, params.rho));
  EDGEADMM_TRY(s.step.SetModel(trainer.primary()));
  EDGEADMM_TRY(s.step.BeginRound());
  // u already excludes the party's own released share (the gateway
  // subtracts it), so the own share passed is 0: `share` serves as the
  // zero block before it receives the share.
  for (size_t i = 0; i < n; ++i) share[i] = 0;
  EDGEADMM_TRY(s.step.AccumulateBlock(0, y, u, share));
  EDGEADMM_TRY_ASSIGN(SharingSolveReport report,
                      s.step.Solve(params.noise, trainer.exact_noise()));
  EDGEADMM_TRY_ASSIGN(
      report.clip_factor,
      s.step.ClipModel(SharingClipFor(params, score), test_rows));
  EDGEADMM_TRY(
      s.step.ShareBlock(0, params.noise, trainer.exact_noise(), share));
  // The scoring phase: the partial scores of the final x̃_m(T).
  if (score != nullptr) {
    EDGEADMM_TRY(
        s.step.ScoreBlock(test_rows, *score, trainer.exact_noise(), scores));
  }
  EDGEADMM_TRY(Commit(trainer, s));
  return report;
}

}  // namespace

Status InitAdmmSharingStep(Workspace& ws, const DatasetView& data,
                           const Loss& /*loss*/, void** step) {
  EDGEADMM_TRY_ASSIGN(AdmmSharingRunnerState* const made,
                      EmplaceStep<AdmmSharingRunnerState>(ws));
  EDGEADMM_TRY_ASSIGN(
      made->workspace,
      ws.Allocate<std::byte>(AdmmSharingStep::WorkspaceBytes(data.dim())));
  *step = made;
  return Status::Ok();
}

Result<SharingSolveReport> RunAdmmSharing(LocalTrainer& trainer,
                                          const SharingTaskParams& params,
                                          uint64_t round, Span<const Real> u,
                                          Span<const Real> y,
                                          Span<Real> upload) {
  return SharingStep(trainer, params, nullptr, round, u, y, Span<const Real>(),
                     upload);
}

Result<SharingSolveReport> RunAdmmSharing(
    LocalTrainer& trainer, const SharingTaskParams& params,
    const SharingScoreParams& score, uint64_t round, Span<const Real> u,
    Span<const Real> y, Span<const Real> test_rows, Span<Real> upload) {
  return SharingStep(trainer, params, &score, round, u, y, test_rows, upload);
}

Status BeginSharingStream(LocalTrainer& trainer, uint64_t round) {
  AdmmSharingRunnerState* const s = StateOf(trainer);
  if (s != nullptr) s->pending = false;
  EDGEADMM_TRY(trainer.CheckRound(AlgorithmKind::kAdmmSharing, round));
  // The data are bound now; K = λI + ρD_mᵀD_m is factored when the task's
  // ρ, λ have arrived (after its vectors). x̃_m is the persisted state.
  Workspace ws(s->workspace);
  EDGEADMM_TRY(s->step.Bind(ws, Features(trainer), trainer.data().samples(),
                            trainer.data().dim()));
  EDGEADMM_TRY(s->step.SetModel(trainer.primary()));
  EDGEADMM_TRY(s->step.BeginRound());
  s->round = round;
  s->pending = true;
  return Status::Ok();
}

Status AccumulateSharingStream(LocalTrainer& trainer,
                               AdmmSharingStep::Vector which, size_t first_row,
                               Span<const Real> values,
                               Span<const Real> zeros) {
  AdmmSharingRunnerState* const s = StateOf(trainer);
  if (s == nullptr || !s->pending) return Status::FailedPrecondition();
  if (zeros.size() < values.size()) return Status::InvalidArgument();
  // u excludes the party's own share (the gateway subtracted it): the own
  // share passed for kModel rows is 0.
  return s->step.AccumulateVectorBlock(which, first_row, values,
                                       which == AdmmSharingStep::Vector::kModel
                                           ? zeros.first(values.size())
                                           : Span<const Real>());
}

Result<SharingSolveReport> FinishSharingStream(LocalTrainer& trainer,
                                               const SharingTaskParams& params,
                                               const SharingScoreParams* score,
                                               uint64_t round,
                                               Span<const Real> test_rows,
                                               ByteSpan noise_key) {
  AdmmSharingRunnerState* const s = StateOf(trainer);
  if (s == nullptr || !s->pending || round != s->round) {
    return Status::FailedPrecondition();
  }
  s->pending = false;
  EDGEADMM_TRY(PlanCharge(trainer, *s, params, score, round));
  EDGEADMM_TRY(s->step.Factor(params.lambda, params.rho));
  EDGEADMM_TRY_ASSIGN(SharingSolveReport report,
                      s->step.Solve(params.noise, trainer.exact_noise()));
  EDGEADMM_TRY_ASSIGN(
      report.clip_factor,
      s->step.ClipModel(SharingClipFor(params, score), test_rows));
  EDGEADMM_TRY(ShareNoiseStream::NewKey(trainer.drbg(), noise_key));
  EDGEADMM_TRY(Commit(trainer, *s));
  return report;
}

}  // namespace edgeadmm
