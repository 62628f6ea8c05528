#include "edgeadmm/linearized_admm_runner.h"

#include "edgeadmm/eigen_maps.h"

namespace edgeadmm {

Result<LinearizedAdmmReport> RunLinearizedAdmm(
    LocalTrainer& trainer, const LinearizedAdmmParams& params, uint64_t round,
    Span<const Real> w_global, Span<Real> upload) {
  EDGEADMM_TRY(trainer.BeginStep(AlgorithmKind::kLinearizedAdmm, round, upload,
                                 trainer.data().dim()));
  auto* const step = static_cast<LinearizedAdmmStep*>(
      trainer.StepObject(AlgorithmKind::kLinearizedAdmm));
  EDGEADMM_TRY(params.Validate());
  const uint32_t k = trainer.state().local_iteration;
  const size_t m = trainer.data().samples();
  // The subject is the device (docs/privacy.md): charge the replace-one
  // sensitivity of all its records, not paper 004's one-record Lemma 1,
  // with the grid's rounding (grid_gaussian.h).
  const double sensitivity =
      params.GridDeviceSensitivity(k, m, trainer.data().dim());
  const double noise_std = params.NoiseStd(k, m);
  EDGEADMM_TRY(trainer.CheckBudget(params.add_noise, sensitivity, noise_std));
  EDGEADMM_TRY_ASSIGN(auto report,
                      step->Run(params, k, w_global, trainer.secondary(),
                                trainer.primary(), trainer.exact_noise()));
  VectorMap(upload.data(), upload.size()) =
      ConstVectorMap(trainer.primary().data(), upload.size());
  EDGEADMM_TRY(
      trainer.FinishStep(params.add_noise, sensitivity, noise_std, round));
  return report;
}

Status ApplyLinearizedDual(LocalTrainer& trainer, Real rho,
                           Span<const Real> w_new_global) {
  if (trainer.StepObject(AlgorithmKind::kLinearizedAdmm) == nullptr) {
    return Status::FailedPrecondition();
  }
  return LinearizedAdmmStep::DualUpdate(rho, trainer.primary(), w_new_global,
                                        trainer.secondary());
}

}  // namespace edgeadmm
