// Server updates: how a committed round's accepted uploads become the next
// model.
#pragma once

#include <cstdint>
#include <vector>

#include "edgeadmm/jobs/job_config.h"
#include "edgeadmm/result.h"
#include "edgeadmm/rounds/sampling_rng.h"

namespace edgeadmm::rounds {

// The server's model state, persisted per iteration.
struct ServerModel {
  std::vector<double> z;      // released model (z for 002, w for 004)
  std::vector<double> state;  // ŝ = (1/n)Σ_i u_i for 002; unused otherwise
};

// Length of one upload vector: p for every algorithm (docs/protocol.md:
// Update.vector is Δu for prox-admm, the noisy model w̃ for dp-admm).
int64_t UploadLength(const jobs::JobConfig& config);

// Applies one round's uploads (each UploadLength long) to `model`:
//  prox-admm (paper 002 Alg. 3 with pitfall P3): ŝ += (1/n)·Σ Δu_i (plus
//    N(0, (λσ)²I) on the sum under trusted-aggregator), z = prox_{γr}(ŝ)
//    (paper 002 eq. (5)); n is the job's enrolled device count, not m.
//  dp-admm (paper 004 trainer step w = mean(w̃_i) − mean(γ_i)/ρ): devices
//    send only w̃ (protocol), and Σ_i γ_i stays 0 from γ⁰ = 0 when every
//    device takes part, so w = mean(w̃_i) (digest-002-004.md section 2.6).
//  dp-sgd (DP-FedAvg with a proximal server step): z = prox_{γr}(z +
//    mean(Δ_i)), Δ_i = Clip(w_i − z, C) + ξ_i the device's model change
//    after E gradient steps of size γ (so −γ·∇f_i(z) for E = 1).
// INVALID_ARGUMENT on no uploads or a wrong length; DRBG errors.
Status ApplyRound(const jobs::JobConfig& config, int64_t n,
                  const std::vector<std::vector<double>>& uploads,
                  SamplingRng& noise_rng, ServerModel& model);

}  // namespace edgeadmm::rounds
