// The runner of paper 004's DP-ADMM local step (job "dp-admm";
// LinearizedAdmmStep) on a LocalTrainer: its workspace, its Init,
// RunLinearizedAdmm and the dual update ApplyLinearizedDual.
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/linearized_admm_step.h"
#include "edgeadmm/local_trainer.h"

namespace edgeadmm {

constexpr size_t LinearizedAdmmStepBytes(LossKind /*loss*/, size_t samples,
                                         size_t dim) {
  return StepObjectBytes<LinearizedAdmmStep>() +
         LinearizedAdmmStep::WorkspaceBytes(samples, dim);
}

inline constexpr LocalStepRunner kLinearizedAdmmRunner{
    AlgorithmKind::kLinearizedAdmm, LinearizedAdmmStepBytes,
    InitStepInWorkspace<LinearizedAdmmStep>};

// Paper 004 local step: updates w̃_i and writes it to `upload` (dim
// entries). Errors as RunProxAdmm's (prox_admm_runner.h).
Result<LinearizedAdmmReport> RunLinearizedAdmm(
    LocalTrainer& trainer, const LinearizedAdmmParams& params, uint64_t round,
    Span<const Real> w_global, Span<Real> upload);
// Paper 004 (3d) when the new global model w^{k+1} arrives.
// FAILED_PRECONDITION if the trainer runs another algorithm.
Status ApplyLinearizedDual(LocalTrainer& trainer, Real rho,
                           Span<const Real> w_new_global);

}  // namespace edgeadmm
