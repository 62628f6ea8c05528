#include "edgeadmm/dp_sgd_runner.h"

namespace edgeadmm {

Result<DpSgdReport> RunDpSgd(LocalTrainer& trainer, const DpSgdParams& params,
                             uint64_t round, Span<const Real> z,
                             Span<Real> upload) {
  const size_t dim = trainer.data().dim();
  EDGEADMM_TRY(trainer.BeginStep(AlgorithmKind::kDpSgd, round, upload, dim));
  auto* const step =
      static_cast<DpSgdStep*>(trainer.StepObject(AlgorithmKind::kDpSgd));
  EDGEADMM_TRY(params.Validate());
  const bool accounted = params.sigma > 0;
  const double sensitivity = params.ReplaceOneSensitivity(dim);
  EDGEADMM_TRY(trainer.CheckBudget(accounted, sensitivity, params.sigma));
  EDGEADMM_TRY_ASSIGN(auto report,
                      step->Run(params, z, trainer.exact_noise(), upload));
  EDGEADMM_TRY(trainer.FinishStep(accounted, sensitivity, params.sigma, round));
  return report;
}

}  // namespace edgeadmm
