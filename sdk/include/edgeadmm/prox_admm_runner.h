// The runner of paper 002's local step (job "prox-admm"; ProxAdmmStep) on a
// LocalTrainer: its workspace, its Init and RunProxAdmm.
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/local_trainer.h"
#include "edgeadmm/prox_admm_step.h"

namespace edgeadmm {

constexpr size_t ProxAdmmStepBytes(LossKind loss, size_t samples, size_t dim) {
  return StepObjectBytes<ProxAdmmStep>() +
         ProxAdmmStep::WorkspaceBytes(loss, samples, dim);
}
inline constexpr LocalStepRunner kProxAdmmRunner{
    AlgorithmKind::kProxAdmm, ProxAdmmStepBytes,
    InitStepInWorkspace<ProxAdmmStep>};
// With the loss fixed at compile time: links only the prox method it uses.
template <LossKind kLoss>
inline constexpr LocalStepRunner kProxAdmmRunnerFor{
    AlgorithmKind::kProxAdmm, ProxAdmmStepBytes,
    InitStepInWorkspaceFor<ProxAdmmStep, kLoss>};

// Paper 002 local step for `round`: writes Δu to `upload` (dim entries) and
// updates u_i. Errors: the trainer's round and budget checks
// (LocalTrainer::BeginStep, CheckBudget), the step's Run, and
// FAILED_PRECONDITION if the trainer runs another algorithm.
Result<ProxAdmmReport> RunProxAdmm(LocalTrainer& trainer,
                                   const ProxAdmmParams& params, uint64_t round,
                                   Span<const Real> z, Span<Real> upload);

}  // namespace edgeadmm
