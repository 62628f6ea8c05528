// dp-admm: paper 004 (DP-ADMM), one linearized step per round with the
// time-varying noise schedule (Thm 1); devices send their noisy model w̃_i
// and the server releases w = mean(w̃_i). Its constants are the [dp_admm]
// table (jobs::DpAdmmConfig).
#pragma once

#include "edgeadmm/algorithms/algorithm.h"

namespace edgeadmm::algorithms {

// Paper 004's per-iteration noise multiplier σ_k/Δ_k = sqrt(2 ln(1.25/δ))/ε
// (Thm 1, constant in k); 0 without noise.
double DpAdmmNoiseMultiplier(const jobs::JobConfig& config);

class DpAdmm final : public Algorithm {
 public:
  AlgorithmKind kind() const override { return AlgorithmKind::kLinearizedAdmm; }
  const char* name() const override { return "dp-admm"; }
  RequiredStepKeys required_step_keys() const override {
    return {/*lambda=*/false, /*gamma=*/false, /*rho=*/true};
  }
  const char* table() const override { return "dp_admm"; }
  void ReadTable(jobs::ConfigReader& reader,
                 jobs::JobConfig& config) const override;
  host::Error Resolve(jobs::JobConfig& config) const override;
  host::Error Validate(const jobs::JobConfig& config) const override;
  void FillTask(const jobs::JobConfig& config, int64_t n, int64_t iteration,
                edgeadmm_wire_RoundTask& task) const override;
  edgeadmm_wire_UpdateKind update_kind() const override {
    return edgeadmm_wire_UpdateKind_UPDATE_KIND_MODEL;
  }
  Status ApplyRound(const jobs::JobConfig& config, int64_t n,
                    const std::vector<std::vector<double>>& uploads,
                    RoundNoise& noise, ServerModel& model) const override;
  double OwnNoiseMultiplier(const jobs::JobConfig& config) const override;
};

}  // namespace edgeadmm::algorithms
