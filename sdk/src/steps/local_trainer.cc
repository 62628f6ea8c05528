#include "edgeadmm/local_trainer.h"

#include <cmath>

#include "edgeadmm/share_noise_stream.h"
#include "edgeadmm/vector_checks.h"

namespace edgeadmm {

Status LocalTrainer::Init(ByteSpan workspace, const DatasetView& data,
                          const TrainerConfig& config) {
  Workspace ws(workspace);
  EDGEADMM_TRY(BeginInit(ws, data, config));
  switch (config.algorithm) {
    case AlgorithmKind::kProxAdmm:
      EDGEADMM_TRY(prox_admm_.Init(ws, data, config.loss));
      break;
    case AlgorithmKind::kLinearizedAdmm:
      EDGEADMM_TRY(linearized_.Init(ws, data, config.loss));
      break;
    case AlgorithmKind::kPenaltyPerturbation:
      EDGEADMM_TRY(penalty_.Init(ws, data, config.loss));
      break;
    case AlgorithmKind::kDpSgd:
      EDGEADMM_TRY(dp_sgd_.Init(ws, data, config.loss));
      break;
    case AlgorithmKind::kAdmmSharing:
      EDGEADMM_TRY(CarveSharing(ws, data));
      break;
    default:  // an aggregator-only job kind (BeginInit refuses it)
      return Status::InvalidArgument();
  }
  return FinishInit(data, config);
}

Status LocalTrainer::BeginInit(Workspace& ws, const DatasetView& data,
                               const TrainerConfig& config) {
  // The budget may be +inf: no local guarantee asked for (the ledger still
  // reports the ε spent, +inf above its cap).
  if (config.entropy == nullptr || !(config.epsilon_budget > 0) ||
      !(config.lifetime_epsilon_budget > 0) || !IsPositive(config.delta) ||
      config.delta >= 1 ||
      !IsAlgorithmKind(static_cast<uint8_t>(config.algorithm))) {
    return Status::InvalidArgument();
  }
  EDGEADMM_TRY(config.loss.Validate());
  if (ws.capacity() < WorkspaceBytes(config.algorithm, config.loss.kind,
                                     data.samples(), data.dim())) {
    return Status::ResourceExhausted();
  }
  const size_t p = data.dim();
  state_ = DeviceState();
  state_.job_id = config.job_id;
  state_.algorithm = config.algorithm;
  EDGEADMM_TRY_ASSIGN(state_.primary, ws.Allocate<Real>(p));
  EDGEADMM_TRY_ASSIGN(state_.secondary, ws.Allocate<Real>(p));
  return Status::Ok();
}

Status LocalTrainer::FinishInit(const DatasetView& data,
                                const TrainerConfig& config) {
  EDGEADMM_TRY(drbg_.Init(*config.entropy, config.personalization));
  algorithm_ = config.algorithm;
  epsilon_budget_ = config.epsilon_budget;
  delta_ = config.delta;
  earlier_jobs_ = config.earlier_jobs;
  lifetime_epsilon_budget_ = config.lifetime_epsilon_budget;
  allow_unaccounted_ = config.allow_unaccounted_steps;
  penalty_schedule_ = config.penalty_schedule;
  data_ = data;
  initialized_ = true;
  return Status::Ok();
}

Status LocalTrainer::CarveSharing(Workspace& ws, const DatasetView& data) {
  EDGEADMM_TRY_ASSIGN(
      sharing_workspace_,
      ws.Allocate<std::byte>(AdmmSharingStep::WorkspaceBytes(data.dim())));
  return Status::Ok();
}

Status LocalTrainer::BeginStep(AlgorithmKind algorithm, uint64_t round,
                               Span<Real> upload) const {
  EDGEADMM_TRY(CheckRound(algorithm, round));
  // admm-sharing uploads a share: one value per record.
  const size_t length =
      algorithm == AlgorithmKind::kAdmmSharing ? data_.samples() : data_.dim();
  return upload.size() == length ? Status::Ok() : Status::InvalidArgument();
}

Status LocalTrainer::CheckRound(AlgorithmKind algorithm, uint64_t round) const {
  if (!initialized_ || algorithm != algorithm_) {
    return Status::FailedPrecondition();
  }
  if (state_.last_round != UINT64_MAX && round <= state_.last_round) {
    return Status::AlreadyExists();
  }
  return Status::Ok();
}

Status LocalTrainer::CheckBudget(bool accounted, double sensitivity,
                                 double noise_std) const {
  if (!accounted) {
    return allow_unaccounted_ ? Status::Ok() : Status::FailedPrecondition();
  }
  EDGEADMM_TRY_ASSIGN(const bool exceed,
                      state_.ledger.WouldExceed(sensitivity, noise_std,
                                                epsilon_budget_, delta_));
  if (exceed) return Status::ResourceExhausted();
  // Lifetime: every earlier job composed with this one (RDP adds up).
  DevicePrivacyLedger lifetime;
  if (earlier_jobs_ != nullptr) lifetime = *earlier_jobs_;
  EDGEADMM_TRY(lifetime.Compose(state_.ledger));
  EDGEADMM_TRY_ASSIGN(const bool exceed_lifetime,
                      lifetime.WouldExceed(sensitivity, noise_std,
                                           lifetime_epsilon_budget_, delta_));
  return exceed_lifetime ? Status::ResourceExhausted() : Status::Ok();
}

Status LocalTrainer::FinishStep(bool accounted, double sensitivity,
                                double noise_std, uint64_t round) {
  if (accounted) EDGEADMM_TRY(state_.ledger.Charge(sensitivity, noise_std));
  state_.last_round = round;
  ++state_.local_iteration;
  state_.drbg_reseed_count = drbg_.reseed_count();
  return Status::Ok();
}

Result<ProxAdmmReport> LocalTrainer::RunProxAdmm(const ProxAdmmParams& params,
                                                 uint64_t round,
                                                 Span<const Real> z,
                                                 Span<Real> upload) {
  EDGEADMM_TRY(BeginStep(AlgorithmKind::kProxAdmm, round, upload));
  EDGEADMM_TRY(params.Validate());
  const bool accounted = params.sigma > 0 && params.clip != kNoClip;
  // The grid's rounding is charged (grid_gaussian.h).
  const double sensitivity = params.ReplaceOneSensitivity(data_.dim());
  EDGEADMM_TRY(CheckBudget(accounted, sensitivity, params.NoiseStd()));
  EDGEADMM_TRY_ASSIGN(auto report, prox_admm_.Run(params, z, state_.primary,
                                                  exact_noise_, upload));
  EDGEADMM_TRY(FinishStep(accounted, sensitivity, params.NoiseStd(), round));
  return report;
}

Result<LinearizedAdmmReport> LocalTrainer::RunLinearizedAdmm(
    const LinearizedAdmmParams& params, uint64_t round,
    Span<const Real> w_global, Span<Real> upload) {
  EDGEADMM_TRY(BeginStep(AlgorithmKind::kLinearizedAdmm, round, upload));
  EDGEADMM_TRY(params.Validate());
  const uint32_t k = state_.local_iteration;
  const size_t m = data_.samples();
  // The subject is the device (docs/privacy.md): charge the replace-one
  // sensitivity of all its records, not paper 004's one-record Lemma 1.
  const Real sensitivity = params.DeviceSensitivity(k, m);
  const Real noise_std = params.NoiseStd(k, m);
  EDGEADMM_TRY(CheckBudget(params.add_noise, sensitivity, noise_std));
  EDGEADMM_TRY_ASSIGN(auto report,
                      linearized_.Run(params, k, w_global, state_.secondary,
                                      state_.primary, noise_));
  VectorMap(upload.data(), upload.size()) =
      ConstVectorMap(state_.primary.data(), upload.size());
  EDGEADMM_TRY(FinishStep(params.add_noise, sensitivity, noise_std, round));
  return report;
}

Status LocalTrainer::ApplyLinearizedDual(Real rho,
                                         Span<const Real> w_new_global) {
  if (!initialized_ || algorithm_ != AlgorithmKind::kLinearizedAdmm) {
    return Status::FailedPrecondition();
  }
  return LinearizedAdmmStep::DualUpdate(rho, state_.primary, w_new_global,
                                        state_.secondary);
}

Result<PenaltyPerturbationReport> LocalTrainer::RunPenaltyPerturbation(
    const PenaltyPerturbationParams& params, uint64_t round,
    Span<const Real> neighbour_sum, Span<Real> upload) {
  EDGEADMM_TRY(BeginStep(AlgorithmKind::kPenaltyPerturbation, round, upload));
  // Not charged to the Gaussian ledger: a noisy step is accounted by its own
  // (ε, δ) (PenaltyPerturbationAccountant: paper 001's P_i plus the
  // approximate-minima release), a noiseless one by nothing.
  if (!params.add_noise) EDGEADMM_TRY(CheckBudget(false, 0, 0));
  EDGEADMM_TRY_ASSIGN(
      auto report,
      penalty_.Run(params, static_cast<uint32_t>(state_.local_iteration),
                   neighbour_sum, state_.secondary, state_.primary, noise_,
                   exact_noise_));
  VectorMap(upload.data(), upload.size()) =
      ConstVectorMap(state_.primary.data(), upload.size());
  EDGEADMM_TRY(FinishStep(false, 0, 0, round));
  return report;
}

Status LocalTrainer::ApplyPenaltyPerturbationDual(
    const PenaltyPerturbationParams& params,
    Span<const Real> neighbour_sum_new) {
  if (!initialized_ || algorithm_ != AlgorithmKind::kPenaltyPerturbation) {
    return Status::FailedPrecondition();
  }
  return PenaltyPerturbationStep::DualUpdate(
      params, state_.primary, neighbour_sum_new, state_.secondary);
}

Result<DpSgdReport> LocalTrainer::RunDpSgd(const DpSgdParams& params,
                                           uint64_t round, Span<const Real> z,
                                           Span<Real> upload) {
  EDGEADMM_TRY(BeginStep(AlgorithmKind::kDpSgd, round, upload));
  EDGEADMM_TRY(params.Validate());
  const bool accounted = params.sigma > 0;
  const double sensitivity = params.ReplaceOneSensitivity(data_.dim());
  EDGEADMM_TRY(CheckBudget(accounted, sensitivity, params.sigma));
  EDGEADMM_TRY_ASSIGN(auto report,
                      dp_sgd_.Run(params, z, exact_noise_, upload));
  EDGEADMM_TRY(FinishStep(accounted, sensitivity, params.sigma, round));
  return report;
}

namespace {

// The bounds that make the charged sensitivities true (docs/privacy.md,
// "Bounded shares"): a released share (rigorous) and the released partial
// scores (gaussian) are clipped to half the Δ the ledger charges, so any
// change of the party's data moves them by at most Δ (Δ_s) in L2.
SharingClip SharingClipFor(const SharingTaskParams& params,
                           const SharingScoreParams* score) {
  SharingClip clip;
  if (params.noise.mode == SharingNoise::kRigorous) {
    clip.share = params.sensitivity / 2;
  }
  if (score != nullptr && score->noise == SharingScoreNoise::kGaussian) {
    clip.score = score->sensitivity / 2;
  }
  return clip;
}

}  // namespace

Result<SharingSolveReport> LocalTrainer::RunAdmmSharing(
    const SharingTaskParams& params, uint64_t round, Span<const Real> u,
    Span<const Real> y, Span<Real> upload) {
  return SharingStep(params, nullptr, round, u, y, Span<const Real>(), upload);
}

Result<SharingSolveReport> LocalTrainer::RunAdmmSharing(
    const SharingTaskParams& params, const SharingScoreParams& score,
    uint64_t round, Span<const Real> u, Span<const Real> y,
    Span<const Real> test_rows, Span<Real> upload) {
  return SharingStep(params, &score, round, u, y, test_rows, upload);
}

Result<SharingSolveReport> LocalTrainer::SharingStep(
    const SharingTaskParams& params, const SharingScoreParams* score,
    uint64_t round, Span<const Real> u, Span<const Real> y,
    Span<const Real> test_rows, Span<Real> upload) {
  const size_t n = data_.samples();
  if (upload.size() < n) return Status::InvalidArgument();
  const Span<Real> share = upload.first(n);
  const Span<Real> scores = upload.subspan(n, upload.size() - n);
  EDGEADMM_TRY(BeginStep(AlgorithmKind::kAdmmSharing, round, share));
  if (u.size() != n || y.size() != n || (score == nullptr && !scores.empty()) ||
      (score != nullptr &&
       (scores.empty() || test_rows.size() != scores.size() * data_.dim()))) {
    return Status::InvalidArgument();
  }
  EDGEADMM_TRY(PlanSharingCharge(params, score, round));
  Workspace ws(sharing_workspace_);
  EDGEADMM_TRY(
      sharing_.Init(ws, Span<const Real>(data_.Row(0).data(), n * data_.dim()),
                    n, data_.dim(), params.lambda, params.rho));
  EDGEADMM_TRY(sharing_.SetModel(state_.primary));
  EDGEADMM_TRY(sharing_.BeginRound());
  // u already excludes the party's own released share (the gateway
  // subtracts it), so the own share passed is 0: `share` serves as the
  // zero block before it receives the share.
  for (size_t i = 0; i < n; ++i) share[i] = 0;
  EDGEADMM_TRY(sharing_.AccumulateBlock(0, y, u, share));
  EDGEADMM_TRY_ASSIGN(SharingSolveReport report,
                      sharing_.Solve(params.noise, noise_));
  EDGEADMM_TRY_ASSIGN(
      report.clip_factor,
      sharing_.ClipModel(SharingClipFor(params, score), test_rows));
  EDGEADMM_TRY(sharing_.ShareBlock(0, params.noise, noise_, share));
  // The scoring phase: the partial scores of the final x̃_m(T).
  if (score != nullptr) {
    EDGEADMM_TRY(sharing_.ScoreBlock(test_rows, *score, noise_, scores));
  }
  EDGEADMM_TRY(CommitSharing());
  return report;
}

Status LocalTrainer::PlanSharingCharge(const SharingTaskParams& params,
                                       const SharingScoreParams* score,
                                       uint64_t round) {
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
  if (uncovered && !allow_unaccounted_) return Status::FailedPrecondition();
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
  EDGEADMM_TRY(CheckBudget(accounted, sensitivity, noise_std));
  sharing_charge_ =
      SharingCharge{accounted, sensitivity, noise_std, round, params.noise};
  return Status::Ok();
}

Status LocalTrainer::BeginSharingStream(uint64_t round) {
  sharing_pending_ = false;
  EDGEADMM_TRY(CheckRound(AlgorithmKind::kAdmmSharing, round));
  // The data are bound now; K = λI + ρD_mᵀD_m is factored when the task's
  // ρ, λ have arrived (after its vectors). x̃_m is the persisted state.
  Workspace ws(sharing_workspace_);
  const size_t n = data_.samples();
  EDGEADMM_TRY(
      sharing_.Bind(ws, Span<const Real>(data_.Row(0).data(), n * data_.dim()),
                    n, data_.dim()));
  EDGEADMM_TRY(sharing_.SetModel(state_.primary));
  EDGEADMM_TRY(sharing_.BeginRound());
  sharing_round_ = round;
  sharing_pending_ = true;
  return Status::Ok();
}

Status LocalTrainer::AccumulateSharingStream(AdmmSharingStep::Vector which,
                                             size_t first_row,
                                             Span<const Real> values,
                                             Span<const Real> zeros) {
  if (!sharing_pending_) return Status::FailedPrecondition();
  if (zeros.size() < values.size()) return Status::InvalidArgument();
  // u excludes the party's own share (the gateway subtracted it): the own
  // share passed for kModel rows is 0.
  return sharing_.AccumulateVectorBlock(which, first_row, values,
                                        which == AdmmSharingStep::Vector::kModel
                                            ? zeros.first(values.size())
                                            : Span<const Real>());
}

Result<SharingSolveReport> LocalTrainer::FinishSharingStream(
    const SharingTaskParams& params, const SharingScoreParams* score,
    uint64_t round, Span<const Real> test_rows, ByteSpan noise_key) {
  if (!sharing_pending_ || round != sharing_round_) {
    return Status::FailedPrecondition();
  }
  sharing_pending_ = false;
  EDGEADMM_TRY(PlanSharingCharge(params, score, round));
  EDGEADMM_TRY(sharing_.Factor(params.lambda, params.rho));
  EDGEADMM_TRY_ASSIGN(SharingSolveReport report,
                      sharing_.Solve(params.noise, noise_));
  EDGEADMM_TRY_ASSIGN(
      report.clip_factor,
      sharing_.ClipModel(SharingClipFor(params, score), test_rows));
  EDGEADMM_TRY(ShareNoiseStream::NewKey(drbg_, noise_key));
  EDGEADMM_TRY(CommitSharing());
  return report;
}

Status LocalTrainer::CommitSharing() {
  sharing_pending_ = false;
  const Span<const Real> x = sharing_.x_tilde();
  for (size_t c = 0; c < x.size(); ++c) state_.primary[c] = x[c];
  return FinishStep(sharing_charge_.accounted, sharing_charge_.sensitivity,
                    sharing_charge_.noise_std, sharing_charge_.round);
}

StatusWithSize LocalTrainer::SaveState(ByteSpan out) {
  if (!initialized_) return StatusWithSize(Status::FailedPrecondition(), 0);
  return SerializeDeviceState(state_, out);
}

Status LocalTrainer::LoadState(ConstByteSpan in) {
  if (!initialized_) return Status::FailedPrecondition();
  // Check the blob's identity before anything of this state is overwritten.
  EDGEADMM_TRY_ASSIGN(const DeviceStateInfo info, InspectDeviceState(in));
  if (info.job_id != state_.job_id || info.algorithm != algorithm_) {
    return Status::FailedPrecondition();
  }
  return DeserializeDeviceState(in, state_);
}

}  // namespace edgeadmm
