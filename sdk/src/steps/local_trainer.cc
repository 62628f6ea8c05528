// The generic trainer: config and workspace checks, the state vectors, the
// DRBG, the round and budget checks and the ledger; the step is the
// runner's (LocalStepRunner, local_trainer.h).
#include "edgeadmm/local_trainer.h"

#include "edgeadmm/vector_checks.h"

namespace edgeadmm {

Status LocalTrainer::Init(const LocalStepRunner& runner, ByteSpan workspace,
                          const DatasetView& data,
                          const TrainerConfig& config) {
  initialized_ = false;
  step_ = nullptr;
  charge_override_ = false;
  // The budget may be +inf: no local guarantee asked for (the ledger still
  // reports the ε spent, +inf above its cap).
  if (config.entropy == nullptr || !(config.epsilon_budget > 0) ||
      !(config.lifetime_epsilon_budget > 0) || !IsPositive(config.delta) ||
      config.delta >= 1 || config.algorithm != runner.algorithm ||
      !IsAlgorithmKind(static_cast<uint8_t>(config.algorithm))) {
    return Status::InvalidArgument();
  }
  EDGEADMM_TRY(config.loss.Validate());
  if (workspace.size() <
      WorkspaceBytes(runner, config.loss.kind, data.samples(), data.dim())) {
    return Status::ResourceExhausted();
  }
  Workspace ws(workspace);
  const size_t p = data.dim();
  state_ = DeviceState();
  state_.job_id = config.job_id;
  state_.algorithm = config.algorithm;
  EDGEADMM_TRY_ASSIGN(state_.primary, ws.Allocate<Real>(p));
  EDGEADMM_TRY_ASSIGN(state_.secondary, ws.Allocate<Real>(p));
  void* step = nullptr;
  EDGEADMM_TRY(runner.init(ws, data, config.loss, &step));
  EDGEADMM_TRY(drbg_.Init(*config.entropy, config.personalization));
  // No byte of the previous seeding (another device's, with a shared
  // trainer) reaches this step's noise.
  noise_.Discard();
  exact_noise_.Discard();
  step_ = step;
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

Status LocalTrainer::CheckRound(AlgorithmKind algorithm, uint64_t round) const {
  if (!initialized_ || algorithm != algorithm_) {
    return Status::FailedPrecondition();
  }
  if (state_.last_round != UINT64_MAX && round <= state_.last_round) {
    return Status::AlreadyExists();
  }
  return Status::Ok();
}

Status LocalTrainer::BeginStep(AlgorithmKind algorithm, uint64_t round,
                               Span<Real> upload, size_t length) const {
  EDGEADMM_TRY(CheckRound(algorithm, round));
  return upload.size() == length ? Status::Ok() : Status::InvalidArgument();
}

void LocalTrainer::ChargeNextStepAs(double sensitivity, double noise_std) {
  charge_override_ = true;
  override_sensitivity_ = sensitivity;
  override_noise_std_ = noise_std;
}

Status LocalTrainer::CheckBudget(bool accounted, double sensitivity,
                                 double noise_std) const {
  if (charge_override_) {
    accounted = true;
    sensitivity = override_sensitivity_;
    noise_std = override_noise_std_;
  }
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
  if (charge_override_) {
    accounted = true;
    sensitivity = override_sensitivity_;
    noise_std = override_noise_std_;
    charge_override_ = false;
  }
  if (accounted) EDGEADMM_TRY(state_.ledger.Charge(sensitivity, noise_std));
  state_.last_round = round;
  ++state_.local_iteration;
  state_.drbg_reseed_count = drbg_.reseed_count();
  return Status::Ok();
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
