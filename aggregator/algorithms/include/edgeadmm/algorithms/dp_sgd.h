// dp-sgd: the DP-SGD / DP-FedAvg baseline of paper 002 App. E (and 004).
// Devices send Δ = Clip(w − z, C) + ξ after E local gradient steps of size
// γ; the server releases z = prox_{γr}(z + mean(Δ_i)).
#pragma once

#include "edgeadmm/algorithms/algorithm.h"

namespace edgeadmm::algorithms {

class DpSgd final : public Algorithm, public SumRounds {
 public:
  AlgorithmKind kind() const override { return AlgorithmKind::kDpSgd; }
  const char* name() const override { return "dp-sgd"; }
  RequiredStepKeys required_step_keys() const override {
    return {/*lambda=*/false, /*gamma=*/true, /*rho=*/false};
  }
  // Device-noise policies: the central ledgers convert by RDP (grid noise).
  host::Error Resolve(jobs::JobConfig& config) const override;
  host::Error Validate(const jobs::JobConfig& config) const override;
  void FillTask(const jobs::JobConfig& config, int64_t n, int64_t iteration,
                edgeadmm_wire_RoundTask& task) const override;
  edgeadmm_wire_UpdateKind update_kind() const override {
    return edgeadmm_wire_UpdateKind_UPDATE_KIND_DELTA_U;
  }
  host::UploadBound HonestUpload(const jobs::JobConfig& config) const override;
  Status ApplyRound(const jobs::JobConfig& config, int64_t n,
                    const std::vector<std::vector<double>>& uploads,
                    RoundNoise& noise, ServerModel& model) const override;
  Status ApplySum(const jobs::JobConfig& config, int64_t n,
                  const std::vector<double>& sum, int64_t count,
                  RoundNoise& noise, ServerModel& model) const override;
  const SumRounds* sum_rounds() const override { return this; }
  double OwnNoiseMultiplier(const jobs::JobConfig& config) const override;
  double SigmaForPlannedSigma(double prox_admm_sigma) const override;
};

}  // namespace edgeadmm::algorithms
