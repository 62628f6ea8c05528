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
Status InitProxAdmmStep(Workspace& ws, const DatasetView& data,
                        const Loss& loss, void** step);
// As InitProxAdmmStep for a loss fixed at compile time: links only the prox
// method that loss uses. INVALID_ARGUMENT for another loss.
template <LossKind kLoss>
Status InitProxAdmmStepFor(Workspace& ws, const DatasetView& data,
                           const Loss& loss, void** step) {
  EDGEADMM_TRY_ASSIGN(ProxAdmmStep* const made, EmplaceStep<ProxAdmmStep>(ws));
  EDGEADMM_TRY(made->InitFor<kLoss>(ws, data, loss));
  *step = made;
  return Status::Ok();
}

inline constexpr LocalStepRunner kProxAdmmRunner{
    AlgorithmKind::kProxAdmm, ProxAdmmStepBytes, InitProxAdmmStep};
template <LossKind kLoss>
inline constexpr LocalStepRunner kProxAdmmRunnerFor{
    AlgorithmKind::kProxAdmm, ProxAdmmStepBytes, InitProxAdmmStepFor<kLoss>};

// Paper 002 local step for `round`: writes Δu to `upload` (dim entries) and
// updates u_i. Errors: the trainer's round and budget checks
// (LocalTrainer::BeginStep, CheckBudget), the step's Run, and
// FAILED_PRECONDITION if the trainer runs another algorithm.
Result<ProxAdmmReport> RunProxAdmm(LocalTrainer& trainer,
                                   const ProxAdmmParams& params, uint64_t round,
                                   Span<const Real> z, Span<Real> upload);

}  // namespace edgeadmm
