#include "edgeadmm/prox_admm_runner.h"

namespace edgeadmm {

Result<ProxAdmmReport> RunProxAdmm(LocalTrainer& trainer,
                                   const ProxAdmmParams& params, uint64_t round,
                                   Span<const Real> z, Span<Real> upload) {
  const size_t dim = trainer.data().dim();
  EDGEADMM_TRY(trainer.BeginStep(AlgorithmKind::kProxAdmm, round, upload, dim));
  auto* const step =
      static_cast<ProxAdmmStep*>(trainer.StepObject(AlgorithmKind::kProxAdmm));
  EDGEADMM_TRY(params.Validate());
  const bool accounted = params.sigma > 0 && params.clip != kNoClip;
  // The grid's rounding is charged (grid_gaussian.h).
  const double sensitivity = params.ReplaceOneSensitivity(dim);
  EDGEADMM_TRY(trainer.CheckBudget(accounted, sensitivity, params.NoiseStd()));
  EDGEADMM_TRY_ASSIGN(auto report, step->Run(params, z, trainer.primary(),
                                             trainer.exact_noise(), upload));
  EDGEADMM_TRY(
      trainer.FinishStep(accounted, sensitivity, params.NoiseStd(), round));
  return report;
}

}  // namespace edgeadmm
