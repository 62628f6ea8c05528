#include "edgeadmm/penalty_perturbation_runner.h"

#include "edgeadmm/eigen_maps.h"

namespace edgeadmm {

Result<PenaltyPerturbationReport> RunPenaltyPerturbation(
    LocalTrainer& trainer, const PenaltyPerturbationParams& params,
    uint64_t round, Span<const Real> neighbour_sum, Span<Real> upload) {
  EDGEADMM_TRY(trainer.BeginStep(AlgorithmKind::kPenaltyPerturbation, round,
                                 upload, trainer.data().dim()));
  auto* const step = static_cast<PenaltyPerturbationStep*>(
      trainer.StepObject(AlgorithmKind::kPenaltyPerturbation));
  // Not charged to the Gaussian ledger: a noisy step is accounted by its own
  // (ε, δ) (PenaltyPerturbationAccountant: paper 001's P_i plus the
  // approximate-minima release), a noiseless one by nothing.
  if (!params.add_noise) EDGEADMM_TRY(trainer.CheckBudget(false, 0, 0));
  EDGEADMM_TRY_ASSIGN(
      auto report,
      step->Run(params, static_cast<uint32_t>(trainer.state().local_iteration),
                neighbour_sum, trainer.secondary(), trainer.primary(),
                trainer.noise(), trainer.exact_noise()));
  VectorMap(upload.data(), upload.size()) =
      ConstVectorMap(trainer.primary().data(), upload.size());
  EDGEADMM_TRY(trainer.FinishStep(false, 0, 0, round));
  return report;
}

Status ApplyPenaltyPerturbationDual(LocalTrainer& trainer,
                                    const PenaltyPerturbationParams& params,
                                    Span<const Real> neighbour_sum_new) {
  if (trainer.StepObject(AlgorithmKind::kPenaltyPerturbation) == nullptr) {
    return Status::FailedPrecondition();
  }
  return PenaltyPerturbationStep::DualUpdate(
      params, trainer.primary(), neighbour_sum_new, trainer.secondary());
}

}  // namespace edgeadmm
