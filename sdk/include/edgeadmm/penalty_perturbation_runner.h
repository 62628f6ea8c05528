// The runner of paper 001's M-ADMM step with penalty perturbation (job
// "pp-admm"; PenaltyPerturbationStep) on a LocalTrainer: its workspace, its
// Init, RunPenaltyPerturbation and the dual update
// ApplyPenaltyPerturbationDual. A noisy step is pure DP, accounted by
// paper 001's P_i (penalty_perturbation_accountant.h), not by the Gaussian
// ledger: the trainer runs it only with allow_unaccounted_steps.
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/local_trainer.h"
#include "edgeadmm/penalty_perturbation_step.h"

namespace edgeadmm {

constexpr size_t PenaltyPerturbationStepBytes(LossKind loss, size_t samples,
                                              size_t dim) {
  return StepObjectBytes<PenaltyPerturbationStep>() +
         PenaltyPerturbationStep::WorkspaceBytes(loss, samples, dim);
}
inline constexpr LocalStepRunner kPenaltyPerturbationRunner{
    AlgorithmKind::kPenaltyPerturbation, PenaltyPerturbationStepBytes,
    InitStepInWorkspace<PenaltyPerturbationStep>};
// With the loss fixed at compile time: links only the prox method it uses.
template <LossKind kLoss>
inline constexpr LocalStepRunner kPenaltyPerturbationRunnerFor{
    AlgorithmKind::kPenaltyPerturbation, PenaltyPerturbationStepBytes,
    InitStepInWorkspaceFor<PenaltyPerturbationStep, kLoss>};

// Paper 001 primal step: updates f_i and writes it to `upload` (dim
// entries). Errors as RunProxAdmm's (prox_admm_runner.h).
Result<PenaltyPerturbationReport> RunPenaltyPerturbation(
    LocalTrainer& trainer, const PenaltyPerturbationParams& params,
    uint64_t round, Span<const Real> neighbour_sum, Span<Real> upload);
// Paper 001 dual update (11) with the neighbours' new sum S_i(t+1).
// FAILED_PRECONDITION if the trainer runs another algorithm.
Status ApplyPenaltyPerturbationDual(LocalTrainer& trainer,
                                    const PenaltyPerturbationParams& params,
                                    Span<const Real> neighbour_sum_new);

}  // namespace edgeadmm
