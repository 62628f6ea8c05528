// LocalTrainer: the generic part of a device's local step — its mapped
// dataset, the persisted device state, a CTR_DRBG for the noise, the
// device's own privacy ledger and its budget check, the round bookkeeping —
// all in one caller-owned workspace. It names no algorithm: the job's step
// comes from its runner (LocalStepRunner below), which Init constructs
// in the workspace, and runs through that runner's functions
// (edgeadmm/*_runner.h; edgeadmm/local_steps.h lists them all).
//
// clang-format off
//   alignas(16) static std::byte memory[LocalStepWorkspaceBytes(...)];
//   LocalTrainer trainer;
//   EDGEADMM_TRY(trainer.Init(memory, data, config));  // the only "allocation"
//   EDGEADMM_TRY(RunStep(trainer, params, round, z, upload));  // a runner's
//   EDGEADMM_TRY(trainer.SaveState(blob));  // persist BEFORE sending `upload`
// clang-format on
//
// Nothing touches the heap. Before every private step the runner asks the
// trainer's budget check (CheckBudget), which refuses (RESOURCE_EXHAUSTED) a
// step that would take the device's local ε above its budget, whatever the
// aggregator asks. A round id that is not newer than the last computed one
// is refused (ALREADY_EXISTS): the same (job, round) is never recomputed
// with fresh noise.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <new>
#include <type_traits>

#include "edgeadmm/algorithm.h"
#include "edgeadmm/dataset_view.h"
#include "edgeadmm/device_state.h"
#include "edgeadmm/discrete_gaussian_sampler.h"
#include "edgeadmm/drbg.h"
#include "edgeadmm/entropy_source.h"
#include "edgeadmm/gaussian_sampler.h"
#include "edgeadmm/loss.h"
#include "edgeadmm/penalty_schedule.h"
#include "edgeadmm/result.h"
#include "edgeadmm/span.h"
#include "edgeadmm/workspace.h"

namespace edgeadmm {

// LocalStepRunner: how LocalTrainer (which names no algorithm) sizes and
// creates the local step of a job. Each algorithm's runner header
// (edgeadmm/*_runner.h) defines its runner: the algorithm it serves, the
// workspace bytes its step needs (the step object included) and the Init that
// constructs the step object in storage carved from the trainer's workspace.
// Its run functions take the trainer and the object back
// (LocalTrainer::StepObject). edgeadmm/local_steps.h lists every runner.
struct LocalStepRunner {
  AlgorithmKind algorithm;
  // Workspace bytes the step needs for this loss and data shape (its object
  // and its buffers); usable in constant expressions.
  size_t (*workspace_bytes)(LossKind loss, size_t samples, size_t dim);
  // Creates the step in `ws` (its object first, then its buffers) and
  // returns the object in `step`. Errors as the step's Init.
  Status (*init)(Workspace& ws, const DatasetView& data, const Loss& loss,
                 void** step);
  // True when the step also runs on a task streamed in row blocks (a
  // StaticDeviceClient whose shape has it links the streaming party).
  bool streams = false;
};

// Workspace bytes of a step object of type T.
template <typename T>
constexpr size_t StepObjectBytes() {
  return Workspace::Bytes<std::byte>(sizeof(T));
}

// Constructs a T in storage carved from `ws` (no heap): RESOURCE_EXHAUSTED
// when it does not fit. T's destructor is never run: a step holds spans
// into the workspace and nothing else.
template <typename T>
Result<T*> EmplaceStep(Workspace& ws) {
  static_assert(alignof(T) <= Workspace::kAlignment, "over-aligned step");
  static_assert(std::is_trivially_destructible_v<T>,
                "a step is dropped with its workspace");
  EDGEADMM_TRY_ASSIGN(const ByteSpan bytes, ws.Allocate<std::byte>(sizeof(T)));
  return new (bytes.data()) T();
}

// LocalStepRunner::init of a step with Init(ws, data, loss): constructs it in
// `ws`, then runs its Init; with kLoss, its InitFor<kLoss> (links only the
// prox method that loss uses).
template <typename Step>
Status InitStepInWorkspace(Workspace& ws, const DatasetView& data,
                           const Loss& loss, void** step) {
  EDGEADMM_TRY_ASSIGN(Step* const made, EmplaceStep<Step>(ws));
  EDGEADMM_TRY(made->Init(ws, data, loss));
  *step = made;
  return Status::Ok();
}
template <typename Step, LossKind kLoss>
Status InitStepInWorkspaceFor(Workspace& ws, const DatasetView& data,
                              const Loss& loss, void** step) {
  EDGEADMM_TRY_ASSIGN(Step* const made, EmplaceStep<Step>(ws));
  EDGEADMM_TRY(made->template InitFor<kLoss>(ws, data, loss));
  *step = made;
  return Status::Ok();
}

// Runtime policy of one device, validated by Init.
struct TrainerConfig {
  AlgorithmKind algorithm{};  // required: the runner's (Init refuses 0)
  Loss loss;
  uint64_t job_id = 0;
  EntropySource* entropy = nullptr;  // seeds the DRBG (required)
  ConstByteSpan personalization;     // e.g. the device id; mixed into the DRBG
  double epsilon_budget = 1.0;  // local ε: rounds beyond it are refused (> 0;
                                // +inf: no limit, ε reported as spent)
  double delta = 1e-5;          // δ of the local budget, in (0, 1)
  // The device's earlier jobs (null: none) and the budget of all its jobs
  // together (ε at `delta`; > 0, +inf: no limit): a step is refused unless
  // both this job's ledger and earlier_jobs + this job's ledger stay within
  // their budgets. Must outlive the trainer's steps.
  const DevicePrivacyLedger* earlier_jobs = nullptr;
  double lifetime_epsilon_budget = std::numeric_limits<double>::infinity();
  // Allow steps the Gaussian ledger cannot account: σ = 0 or no clipping
  // (non-private baselines) and steps whose mechanism another accountant
  // bounds (the step's runner says which). Off by default.
  bool allow_unaccounted_steps = false;
  // The device's private penalty schedules, never sent (read by the step
  // whose params include them; edgeadmm/penalty_schedule.h).
  PenaltySchedule penalty_schedule;
};

class LocalTrainer {
 public:
  // Workspace bytes Init needs for a step that needs `step_bytes`
  // (LocalStepRunner::workspace_bytes) on data of dimension `dim`.
  static constexpr size_t WorkspaceBytes(size_t step_bytes, size_t dim) {
    return 2 * Workspace::Bytes<Real>(dim) +  // state vectors
           step_bytes;
  }
  static constexpr size_t WorkspaceBytes(const LocalStepRunner& runner,
                                         LossKind loss, size_t samples,
                                         size_t dim) {
    return WorkspaceBytes(runner.workspace_bytes(loss, samples, dim), dim);
  }

  // Binds the trainer to `data`, carves the state vectors from `workspace`
  // and creates the step of `runner` there. INVALID_ARGUMENT for a bad
  // config (no entropy source, bad loss or budget, config.algorithm not the
  // runner's); RESOURCE_EXHAUSTED if `workspace` is too small; UNAVAILABLE if
  // the entropy source fails. The device state starts fresh for
  // config.job_id, the DRBG is seeded again and the noise samplers drop the
  // bytes they buffered, so a step's noise comes from this seeding alone
  // (also when clients share the trainer). Links only that runner's step.
  Status Init(const LocalStepRunner& runner, ByteSpan workspace,
              const DatasetView& data, const TrainerConfig& config);
  // As Init with the runner of config.algorithm among every registered one
  // (sdk/src/steps/local_steps.cc: links every step); INVALID_ARGUMENT for
  // an algorithm with no device step.
  Status Init(ByteSpan workspace, const DatasetView& data,
              const TrainerConfig& config);

  // Serialized state (see device_state.h). RESOURCE_EXHAUSTED if too small.
  StatusWithSize SaveState(ByteSpan out);
  // Restores a persisted state: DATA_LOSS for a corrupt blob,
  // INVALID_ARGUMENT for another shape, FAILED_PRECONDITION for another job
  // or algorithm. The DRBG is NOT restored: it was reseeded with fresh
  // entropy at Init, so no noise stream is ever replayed.
  Status LoadState(ConstByteSpan in);
  static constexpr size_t StateBytes(size_t dim) {
    return DeviceStateSerializedSize(dim);
  }

  const DeviceState& state() const { return state_; }
  const PenaltySchedule& penalty_schedule() const { return penalty_schedule_; }
  // Local ε spent so far at the configured δ.
  Result<double> LocalEpsilon() const { return state_.ledger.Epsilon(delta_); }

  // For the runners (edgeadmm/*_runner.h) only: what a step reads and the
  // checks and bookkeeping around it.
  //
  // The step object of `algorithm` made at Init; null before Init or when
  // the trainer runs another algorithm (a run function then answers
  // FAILED_PRECONDITION).
  void* StepObject(AlgorithmKind algorithm) const {
    return initialized_ && algorithm == algorithm_ ? step_ : nullptr;
  }
  // Round freshness (ALREADY_EXISTS for a round not newer than the last
  // computed one; FAILED_PRECONDITION before Init or for another algorithm),
  // and with `upload`: INVALID_ARGUMENT unless it has `length` entries.
  Status CheckRound(AlgorithmKind algorithm, uint64_t round) const;
  Status BeginStep(AlgorithmKind algorithm, uint64_t round, Span<Real> upload,
                   size_t length) const;
  // Budget check for a Gaussian step of (sensitivity, noise_std) against
  // this job's and the lifetime budget; `accounted` false for a step the
  // ledger cannot account (FAILED_PRECONDITION unless
  // allow_unaccounted_steps).
  Status CheckBudget(bool accounted, double sensitivity,
                     double noise_std) const;
  // Ledger charge and counters after a successful step.
  Status FinishStep(bool accounted, double sensitivity, double noise_std,
                    uint64_t round);
  // A secure-aggregation round (the client, before the step): the device's
  // noise is added after the step, by the encoder (SecureAggregationChargeOf
  // gives its mechanism), and the task's own sigma is 0. Until the next
  // FinishStep or Init, CheckBudget and FinishStep check and charge
  // (sensitivity, noise_std) in place of what the runner passes.
  void ChargeNextStepAs(double sensitivity, double noise_std);
  bool allow_unaccounted_steps() const { return allow_unaccounted_; }
  const DatasetView& data() const { return data_; }
  // The state vectors a step updates (dim entries each).
  Span<Real> primary() { return state_.primary; }
  Span<Real> secondary() { return state_.secondary; }
  Drbg& drbg() { return drbg_; }
  // Continuous Gaussian (Box–Muller): only for the steps whose Run still
  // takes a GaussianSampler; the others draw exact grid noise from
  // exact_noise() (grid_gaussian.h, docs/privacy.md).
  GaussianSampler& noise() { return noise_; }
  DiscreteGaussianSampler& exact_noise() { return exact_noise_; }

 private:
  DatasetView data_;
  bool initialized_ = false;
  AlgorithmKind algorithm_{};
  void* step_ = nullptr;  // in the workspace, made by the runner's Init
  double epsilon_budget_ = 0;
  double delta_ = 0;
  const DevicePrivacyLedger* earlier_jobs_ = nullptr;
  double lifetime_epsilon_budget_ = 0;
  bool allow_unaccounted_ = false;
  bool charge_override_ = false;  // ChargeNextStepAs
  double override_sensitivity_ = 0;
  double override_noise_std_ = 0;
  PenaltySchedule penalty_schedule_;
  Drbg drbg_;
  GaussianSampler noise_{drbg_};
  DiscreteGaussianSampler exact_noise_{drbg_};
  DeviceState state_;
};

}  // namespace edgeadmm
