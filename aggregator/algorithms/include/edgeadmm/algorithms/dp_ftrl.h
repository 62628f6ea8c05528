// dp-ftrl: DP-FTRL with tree aggregation (Kairouz, McMahan, Song, Thakkar,
// Thakurta, Xu, ICML 2021, Alg. 1 with the tree of Sec. 3), whose guarantee
// does not rest on the gateway's sampling being uniform or secret: a device
// may take part in any rounds, at most dp_ftrl.max_participations times.
// Devices run the dp-sgd step without noise (Δ = Clip(w − z, C) after E
// local gradient steps of size γ); the gateway clips each upload again,
// adds round t's sum to the tree (tree_aggregation.h, node noise σ) and
// releases z_t = prox_{γr}(η_s/(q·n) · noisy prefix sum of rounds 1..t)
// from the initial z_0 = 0, η_s = dp_ftrl.server_learning_rate.
//
// Privacy (docs/privacy.md, "dp-ftrl"): policy trusted-aggregator (the noise
// is the gateway's). Zero-out one device: its ≤ k uploads, each of norm
// ≤ C, change the tree's nodes by a vector of squared norm ≤ C²·B(k)
// (TreeSquaredCountBound), so the release is ρ-zCDP with
// ρ = C²·B(k)/(2σ²) (adaptive composition of the node Gaussians, bounded
// by a filter, Feldman and Zrnic 2021). Each participation is charged a
// Gaussian of ν = σ/(C·√(B(k)/k)); since B(j)/j grows with j, the j
// charges of a device bound what its j participations ever reveal.
#pragma once

#include <cstdint>

#include "edgeadmm/algorithms/algorithm.h"

namespace edgeadmm::algorithms {

class DpFtrl final : public Algorithm, public ParticipationCharge {
 public:
  AlgorithmKind kind() const override { return AlgorithmKind::kDpFtrl; }
  const char* name() const override { return "dp-ftrl"; }
  RequiredStepKeys required_step_keys() const override {
    return {/*lambda=*/false, /*gamma=*/true, /*rho=*/false};
  }
  const char* table() const override { return "dp_ftrl"; }
  void ReadTable(jobs::ConfigReader& reader,
                 jobs::JobConfig& config) const override;
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
  // The devices add no noise.
  double OwnNoiseMultiplier(const jobs::JobConfig& /*config*/) const override {
    return 0;
  }
  privacy::LedgerMeaning CentralMeaning(
      const jobs::JobConfig& config) const override;
  const ParticipationCharge* participation_charge() const override {
    return this;
  }
  double ParticipationNoiseMultiplier(
      const jobs::JobConfig& config) const override;
  int64_t MaxParticipations(const jobs::JobConfig& config) const override;
};

}  // namespace edgeadmm::algorithms
