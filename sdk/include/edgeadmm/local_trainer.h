// LocalTrainer: everything one device needs to take part in a private
// federated job — its mapped dataset, the local step of the job's algorithm,
// the persisted device state, a CTR_DRBG for the noise, and the device's own
// privacy ledger, all in one caller-owned workspace.
//
// clang-format off
//   alignas(16) static std::byte memory[LocalTrainer::WorkspaceBytes(...)];
//   LocalTrainer trainer;
//   EDGEADMM_TRY(trainer.Init(memory, data, config));  // the only "allocation"
//   EDGEADMM_TRY(trainer.RunProxAdmm(params, round, z, upload));
//   EDGEADMM_TRY(trainer.SaveState(blob));  // persist BEFORE sending `upload`
// clang-format on
//
// Nothing touches the heap. Before every private step the trainer checks its
// ledger and refuses (RESOURCE_EXHAUSTED) a step that would take the device's
// local ε above its budget, whatever the aggregator asks. A round id that is
// not newer than the last computed one is refused (ALREADY_EXISTS): the same
// (job, round) is never recomputed with fresh noise.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

#include "edgeadmm/admm_sharing_step.h"
#include "edgeadmm/dataset_view.h"
#include "edgeadmm/device_state.h"
#include "edgeadmm/discrete_gaussian_sampler.h"
#include "edgeadmm/dp_sgd_step.h"
#include "edgeadmm/drbg.h"
#include "edgeadmm/entropy_source.h"
#include "edgeadmm/gaussian_sampler.h"
#include "edgeadmm/linearized_admm_step.h"
#include "edgeadmm/loss.h"
#include "edgeadmm/penalty_perturbation_step.h"
#include "edgeadmm/prox_admm_step.h"
#include "edgeadmm/result.h"
#include "edgeadmm/span.h"
#include "edgeadmm/workspace.h"

namespace edgeadmm {

// Runtime policy of one device, validated by Init.
struct TrainerConfig {
  AlgorithmKind algorithm = AlgorithmKind::kProxAdmm;
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
  // (non-private baselines), and paper 001's pure-DP penalty perturbation,
  // which the aggregator accounts with the paper's bound. Off by default.
  bool allow_unaccounted_steps = false;
  // Paper 001 (pp-admm): this device's private schedules, never sent
  // (η_i(t) = min(η₁q₁^{t−1}, η_max), α_i(t) = α₁q₂^{t−1}; DVP tasks use
  // η ≡ θ). A noisy pp-admm step is accounted by paper 001's P_i, not by
  // the Gaussian ledger.
  PenaltySchedule penalty_schedule;
};

class LocalTrainer {
 public:
  // The algorithms with a local step here: the ones a device runs (each has
  // one line in the task adapters' registration table,
  // sdk/src/steps/algorithm_tasks.cc, which checks at compile time that the
  // two list the same ones; the DeviceClient sizes its workspace from it).
  static constexpr AlgorithmKind kAlgorithms[] = {
      AlgorithmKind::kProxAdmm, AlgorithmKind::kLinearizedAdmm,
      AlgorithmKind::kDpSgd, AlgorithmKind::kPenaltyPerturbation,
      AlgorithmKind::kAdmmSharing};

  // Workspace bytes Init needs for this algorithm, loss and data shape.
  static constexpr size_t WorkspaceBytes(AlgorithmKind algorithm, LossKind loss,
                                         size_t samples, size_t dim) {
    return 2 * Workspace::Bytes<Real>(dim) +  // state vectors
           StepBytes(algorithm, loss, samples, dim);
  }

  // Binds the trainer to `data` and carves every buffer from `workspace`.
  // INVALID_ARGUMENT for a bad config (no entropy source, bad loss or budget);
  // RESOURCE_EXHAUSTED if `workspace` is too small; UNAVAILABLE if the
  // entropy source fails. The device state starts fresh for config.job_id.
  Status Init(ByteSpan workspace, const DatasetView& data,
              const TrainerConfig& config);
  // As Init for an algorithm and loss fixed at compile time: links only that
  // step and the prox method the loss uses (Init links all of them).
  // INVALID_ARGUMENT also if the config names another algorithm or loss.
  template <AlgorithmKind kAlgorithm, LossKind kLoss>
  Status InitFor(ByteSpan workspace, const DatasetView& data,
                 const TrainerConfig& config) {
    if (config.algorithm != kAlgorithm || config.loss.kind != kLoss) {
      return Status::InvalidArgument();
    }
    Workspace ws(workspace);
    EDGEADMM_TRY(BeginInit(ws, data, config));
    if constexpr (kAlgorithm == AlgorithmKind::kProxAdmm) {
      EDGEADMM_TRY(prox_admm_.InitFor<kLoss>(ws, data, config.loss));
    } else if constexpr (kAlgorithm == AlgorithmKind::kPenaltyPerturbation) {
      EDGEADMM_TRY(penalty_.InitFor<kLoss>(ws, data, config.loss));
    } else if constexpr (kAlgorithm == AlgorithmKind::kLinearizedAdmm) {
      EDGEADMM_TRY(linearized_.Init(ws, data, config.loss));
    } else if constexpr (kAlgorithm == AlgorithmKind::kAdmmSharing) {
      EDGEADMM_TRY(CarveSharing(ws, data));
    } else {
      EDGEADMM_TRY(dp_sgd_.Init(ws, data, config.loss));
    }
    return FinishInit(data, config);
  }

  // Paper 002 local step for `round`: writes Δu to `upload` (p entries) and
  // updates u_i. Errors: see the class comment, the step's Run, and
  // FAILED_PRECONDITION if the job's algorithm is another one.
  Result<ProxAdmmReport> RunProxAdmm(const ProxAdmmParams& params,
                                     uint64_t round, Span<const Real> z,
                                     Span<Real> upload);

  // Paper 004 local step: updates w̃_i and writes it to `upload`.
  Result<LinearizedAdmmReport> RunLinearizedAdmm(
      const LinearizedAdmmParams& params, uint64_t round,
      Span<const Real> w_global, Span<Real> upload);
  // Paper 004 (3d) when the new global model w^{k+1} arrives.
  Status ApplyLinearizedDual(Real rho, Span<const Real> w_new_global);

  // Papers 000/003 party x_m-update (job "admm-sharing"): from u = Σ_{k≠m}
  // s_k − z and y (N = samples entries each, as sent), solves eq. (6)/(16)
  // for x̃_m (persisted in the state), writes the share D_m x̃_m (plus
  // N(0, σ²) per entry in rigorous mode) to `upload` (N entries). Rigorous
  // mode first scales x̃_m so that ||D_m x̃_m||₂ ≤ Δ/2 (the step's
  // ClipModel) and is charged to the ledger as a Gaussian of σ with
  // sensitivity Δ = `sensitivity`, which then holds under any change of the
  // party's data (gaussian scores likewise: ||D_test,m x̃_m||₂ ≤ Δ_s/2);
  // none and paper modes are not Gaussian-ledger steps
  // (allow_unaccounted_steps). Errors as the step's, the ledger's and
  // BeginStep's.
  Result<SharingSolveReport> RunAdmmSharing(const SharingTaskParams& params,
                                            uint64_t round, Span<const Real> u,
                                            Span<const Real> y,
                                            Span<Real> upload);
  // The job's last iteration with a scoring phase: the same step, then the
  // partial scores D_test,m x̃_m(T) of `test_rows` (K x dim, row-major: the
  // party's column block of the job's K test records) follow the share in
  // `upload` (N + K entries; kGaussian adds N(0, σ_s²) per score). One
  // ledger charge covers both releases when both are Gaussian (RDP adds:
  // the ratio √((Δ/σ)² + (Δ_s/σ_s)²)); an exact score (or a share without
  // rigorous noise) is an unaccounted release (allow_unaccounted_steps).
  Result<SharingSolveReport> RunAdmmSharing(const SharingTaskParams& params,
                                            const SharingScoreParams& score,
                                            uint64_t round, Span<const Real> u,
                                            Span<const Real> y,
                                            Span<const Real> test_rows,
                                            Span<Real> upload);

  // The same step for a party that streams its task and its share and never
  // holds an N-vector (DeviceClient with stream_rows; docs/sdk.md,
  // "Streaming party"). A streamed task carries its params after its
  // vectors, so: BeginSharingStream(round) checks the round and binds the
  // data; AccumulateSharingStream adds a block of rows of u (kModel) or y
  // (kAuxiliary) in the order the task carries them (`zeros`: at least as
  // many zeros as the block: the own share the gateway already removed from
  // u); FinishSharingStream(params, score, round, test_rows, key) makes
  // RunAdmmSharing's checks (noise params, budget, unaccounted releases;
  // `score` null without a scoring phase, `test_rows` its test records),
  // factors K, solves, clips x̃ as the whole-vector step does, draws the
  // round's share-noise key (ShareNoiseStream::kKeyBytes) from the DRBG
  // into `noise_key`, then charges the ledger and sets x̃_m in the state
  // like RunAdmmSharing. The caller then produces the share rows
  // D_m x̃_m + σ·n_i(key) (and keyed partial scores) as they are sent, and
  // persists the state with the key before the first one leaves.
  // FAILED_PRECONDITION for Accumulate/Finish without a Begin of that round
  // (a Finish ends the stream, even when it fails); errors otherwise as
  // RunAdmmSharing's and the step's.
  Status BeginSharingStream(uint64_t round);
  Status AccumulateSharingStream(AdmmSharingStep::Vector which,
                                 size_t first_row, Span<const Real> values,
                                 Span<const Real> zeros);
  Result<SharingSolveReport> FinishSharingStream(
      const SharingTaskParams& params, const SharingScoreParams* score,
      uint64_t round, Span<const Real> test_rows, ByteSpan noise_key);

  // Paper 001 primal step: updates f_i and writes it to `upload`.
  Result<PenaltyPerturbationReport> RunPenaltyPerturbation(
      const PenaltyPerturbationParams& params, uint64_t round,
      Span<const Real> neighbour_sum, Span<Real> upload);
  // Paper 001 dual update (11) with the neighbours' new sum S_i(t+1).
  Status ApplyPenaltyPerturbationDual(const PenaltyPerturbationParams& params,
                                      Span<const Real> neighbour_sum_new);

  // DP-SGD baseline step: writes Δ to `upload`.
  Result<DpSgdReport> RunDpSgd(const DpSgdParams& params, uint64_t round,
                               Span<const Real> z, Span<Real> upload);

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

 private:
  static constexpr size_t StepBytes(AlgorithmKind algorithm, LossKind loss,
                                    size_t samples, size_t dim) {
    switch (algorithm) {
      case AlgorithmKind::kProxAdmm:
        return ProxAdmmStep::WorkspaceBytes(loss, samples, dim);
      case AlgorithmKind::kLinearizedAdmm:
        return LinearizedAdmmStep::WorkspaceBytes(samples, dim);
      case AlgorithmKind::kPenaltyPerturbation:
        return PenaltyPerturbationStep::WorkspaceBytes(loss, samples, dim);
      case AlgorithmKind::kDpSgd:
        return DpSgdStep::WorkspaceBytes(samples, dim);
      case AlgorithmKind::kAdmmSharing:
        return AdmmSharingStep::WorkspaceBytes(dim);
      default:  // an aggregator-only job kind: no device step
        return 0;
    }
  }

  // Init before and after the step's own Init: config and workspace checks
  // and the state vectors; then the DRBG and the policy.
  Status BeginInit(Workspace& ws, const DatasetView& data,
                   const TrainerConfig& config);
  Status FinishInit(const DatasetView& data, const TrainerConfig& config);
  // Carves the sharing step's workspace (its Init needs ρ, λ of the task).
  Status CarveSharing(Workspace& ws, const DatasetView& data);
  // The sharing step of both RunAdmmSharing overloads (score null: no
  // scoring phase; upload then N entries).
  Result<SharingSolveReport> SharingStep(const SharingTaskParams& params,
                                         const SharingScoreParams* score,
                                         uint64_t round, Span<const Real> u,
                                         Span<const Real> y,
                                         Span<const Real> test_rows,
                                         Span<Real> upload);
  // Shared checks before a step: algorithm, round freshness, output size.
  Status BeginStep(AlgorithmKind algorithm, uint64_t round,
                   Span<Real> upload) const;
  // BeginStep without the output: algorithm and round freshness.
  Status CheckRound(AlgorithmKind algorithm, uint64_t round) const;
  // The checks of a sharing step and the one charge it will make (into
  // sharing_charge_): noise and score params, budget. The caller has
  // checked the round (BeginStep, BeginSharingStream).
  Status PlanSharingCharge(const SharingTaskParams& params,
                           const SharingScoreParams* score, uint64_t round);
  // Sets x̃_m in the state and makes the planned charge.
  Status CommitSharing();
  // Budget check for a Gaussian step; `accounted` false for steps the
  // ledger cannot account.
  Status CheckBudget(bool accounted, double sensitivity,
                     double noise_std) const;
  // Ledger charge and counters after a successful step.
  Status FinishStep(bool accounted, double sensitivity, double noise_std,
                    uint64_t round);

  DatasetView data_;
  bool initialized_ = false;
  AlgorithmKind algorithm_ = AlgorithmKind::kProxAdmm;
  double epsilon_budget_ = 0;
  double delta_ = 0;
  const DevicePrivacyLedger* earlier_jobs_ = nullptr;
  double lifetime_epsilon_budget_ = 0;
  bool allow_unaccounted_ = false;
  PenaltySchedule penalty_schedule_;
  Drbg drbg_;
  // Continuous Gaussian (Box–Muller): only for the steps whose Run still
  // takes a GaussianSampler; the others draw exact grid noise from
  // exact_noise_ (grid_gaussian.h, docs/privacy.md).
  GaussianSampler noise_{drbg_};
  DiscreteGaussianSampler exact_noise_{drbg_};
  DeviceState state_;
  ProxAdmmStep prox_admm_;
  LinearizedAdmmStep linearized_;
  PenaltyPerturbationStep penalty_;
  DpSgdStep dp_sgd_;
  AdmmSharingStep sharing_;
  ByteSpan sharing_workspace_;
  // The charge a sharing step will make at its commit (one Gaussian:
  // accounted, Δ, σ) and its noise params.
  struct SharingCharge {
    bool accounted = false;
    double sensitivity = 0;  // privacy math in double (real.h)
    double noise_std = 0;
    uint64_t round = 0;
    SharingNoiseParams noise;
  };
  SharingCharge sharing_charge_;
  bool sharing_pending_ = false;  // a streamed step is accumulating
  uint64_t sharing_round_ = 0;    // its round
};

// A LocalTrainer that owns its workspace, sized at compile time for MCUs.
template <AlgorithmKind kAlgorithm, LossKind kLoss, size_t kSamples,
          size_t kFeatures>
class StaticLocalTrainer {
 public:
  static constexpr size_t kWorkspaceBytes =
      LocalTrainer::WorkspaceBytes(kAlgorithm, kLoss, kSamples, kFeatures);

  // INVALID_ARGUMENT if `config` or `data` disagree with the template
  // parameters; otherwise as LocalTrainer::Init (through InitFor, so only
  // this algorithm's step and prox method are linked).
  Status Init(const DatasetView& data, const TrainerConfig& config) {
    if (config.algorithm != kAlgorithm || config.loss.kind != kLoss ||
        data.samples() > kSamples || data.dim() != kFeatures) {
      return Status::InvalidArgument();
    }
    return trainer_.InitFor<kAlgorithm, kLoss>(
        ByteSpan(workspace_, kWorkspaceBytes), data, config);
  }
  LocalTrainer& trainer() { return trainer_; }

 private:
  alignas(Workspace::kAlignment) std::byte workspace_[kWorkspaceBytes];
  LocalTrainer trainer_;
};

}  // namespace edgeadmm
