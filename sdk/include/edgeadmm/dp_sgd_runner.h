// The runner of the DP-SGD baseline's local step (job "dp-sgd"; DpSgdStep)
// on a LocalTrainer: its workspace, its Init and RunDpSgd.
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/dp_sgd_step.h"
#include "edgeadmm/local_trainer.h"

namespace edgeadmm {

constexpr size_t DpSgdStepBytes(LossKind /*loss*/, size_t samples, size_t dim) {
  return StepObjectBytes<DpSgdStep>() + DpSgdStep::WorkspaceBytes(samples, dim);
}

inline constexpr LocalStepRunner kDpSgdRunner{
    AlgorithmKind::kDpSgd, DpSgdStepBytes, InitStepInWorkspace<DpSgdStep>};

// DP-SGD baseline step: writes Δ to `upload` (dim entries). Errors as
// RunProxAdmm's (prox_admm_runner.h).
Result<DpSgdReport> RunDpSgd(LocalTrainer& trainer, const DpSgdParams& params,
                             uint64_t round, Span<const Real> z,
                             Span<Real> upload);

}  // namespace edgeadmm
