// prox-admm: paper 002 Alg. 3 (federated private ADMM with user sampling).
// Devices send Δu = 2λ·Clip(x − z, C) + λη; the server keeps the running
// mean ŝ = (1/n)·Σ_i u_i over all n devices and releases z = prox_{γr}(ŝ).
#pragma once

#include "edgeadmm/algorithms/algorithm.h"

namespace edgeadmm::algorithms {

class ProxAdmm final : public Algorithm, public SumRounds {
 public:
  AlgorithmKind kind() const override { return AlgorithmKind::kProxAdmm; }
  const char* name() const override { return "prox-admm"; }
  RequiredStepKeys required_step_keys() const override {
    return {/*lambda=*/true, /*gamma=*/true, /*rho=*/false};
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
};

}  // namespace edgeadmm::algorithms
