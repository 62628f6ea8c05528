// random-walk-admm: paper 002 Alg. 4 (fully decentralized private ADMM, the
// model z passed along a random walk on the complete graph) with the gateway
// as the walk's relay. Each round is one step: a cohort of exactly one
// device drawn uniformly (fixed m = 1, the engine's CSPRNG-seeded sampler),
// which receives z in its task, runs paper 002's local prox step with
// clipping and its own noise (the prox-admm device step, noise kept in u_i
// as printed) and returns Δu; the server update is prox-admm's with one
// upload: ŝ += Δu/n, z = prox_{γr}(ŝ) (digest pitfall P3). The central
// ledgers charge each visit the device's local Gaussian (the guarantee
// against the gateway and every device); paper 002 Thm. 4's network bound
// (privacy/network_rdp.h) is reported beside it, never charged, and z is
// not released to the other devices (v1/model refused): docs/privacy.md.
#pragma once

#include "edgeadmm/algorithms/algorithm.h"
#include "edgeadmm/algorithms/prox_admm.h"

namespace edgeadmm::algorithms {

class RandomWalkAdmm final : public Algorithm {
 public:
  AlgorithmKind kind() const override { return AlgorithmKind::kRandomWalkAdmm; }
  const char* name() const override { return "random-walk-admm"; }
  RequiredStepKeys required_step_keys() const override {
    return prox_.required_step_keys();
  }
  // Paper 002 Alg. 4 keeps the noise in u_i (privacy.noise_in_state = true,
  // so ŝ stays the mean of the devices' u_i); privacy.accountant = rdp, so
  // the central ledgers convert exactly as the local ones.
  host::Error Resolve(jobs::JobConfig& config) const override;
  host::Error Validate(const jobs::JobConfig& config) const override;
  // prox-admm's task (FEDERATED_PRIVATE_ADMM): the same device step.
  void FillTask(const jobs::JobConfig& config, int64_t n, int64_t iteration,
                edgeadmm_wire_RoundTask& task) const override {
    prox_.FillTask(config, n, iteration, task);
  }
  edgeadmm_wire_UpdateKind update_kind() const override {
    return prox_.update_kind();
  }
  host::UploadBound HonestUpload(const jobs::JobConfig& config) const override {
    return prox_.HonestUpload(config);
  }
  // One step of the walk: exactly one upload (the holder's Δu).
  Status ApplyRound(const jobs::JobConfig& config, int64_t n,
                    const std::vector<std::vector<double>>& uploads,
                    RoundNoise& noise, ServerModel& model) const override;
  double OwnNoiseMultiplier(const jobs::JobConfig& config) const override {
    return prox_.OwnNoiseMultiplier(config);
  }
  bool ChargesLocalAsCentral() const override { return true; }
  std::vector<double> UnchargedNetworkRdp(
      const jobs::JobConfig& config, int64_t n,
      const std::vector<double>& orders) const override;
  privacy::LedgerMeaning CentralMeaning(
      const jobs::JobConfig& config) const override;
  bool ReleasesModelToDevices() const override { return false; }

 private:
  ProxAdmm prox_;
};

}  // namespace edgeadmm::algorithms
