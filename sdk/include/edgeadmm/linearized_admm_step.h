// Linearized private ADMM local step of paper 004 (Huang et al., DP-ADMM).
//
// Device i, iteration k → k+1 (eqs. 3a, 3b, 3d; Alg. 3 with the line-6 typo
// fixed: noise is added to w_i^{k+1}, not to w̃_i^k):
//   (3a) w_i = (ρ w^k + γ_i^k + w̃_i^k/η − f_i'(w̃_i^k)) / (ρ + 1/η)
//        f_i'(w̃) = (1/m_i) Σ_j ℓ'(a_ij, b_ij, w̃) + (λ/N) R'(w̃)
//   (3b) w̃_i^{k+1} = w_i + ξ,   ξ ~ N(0, σ_{i,k+1}² I_d)
//   (3d) γ_i^{k+1} = γ_i^k − ρ (w̃_i^{k+1} − w^{k+1})
//        (after the new w arrives)
// Step sizes η_i^{k+1} (§V–VI):
//   convex (Thm 3, L1): η = D_w / ((S1 + λ S2/N) √(2(k+1)))
//   smooth (Thm 4, L2):
//     η = 1 / (S3 + λ S4/N + 2 S1 √(4(k+1) ln(1.25/δ)) / (m_i ε D_w))
// Noise (Thm 1): σ_{i,k+1} = 2 S1 √(2 ln(1.25/δ)) / (m_i ε (ρ + 1/η)), the
// classic Gaussian mechanism for the replace-one sensitivity (Lemma 1)
// Δ = 2 S1 / (m_i (ρ + 1/η)). σ/Δ = √(2 ln(1.25/δ))/ε is the same every
// iteration (digest 004 §2.3), which is what the ledger charges.
// The noise is exact, on a grid (grid_gaussian.h), never Box–Muller: (3a)
// is w_i = c − ḡ/(ρ + 1/η) with c = (ρ w^k + γ_i^k + w̃_i^k/η −
// (λ/N) R'(w̃_i^k))/(ρ + 1/η) a function of released values only and ḡ the
// mean of the clipped per-example gradients (‖ḡ‖ ≤ S1). The step releases
// w̃ = c + GridRelease(−ḡ/(ρ + 1/η)) with the bound B = S1/(ρ + 1/η), so the
// device-level replace-one sensitivity is 2·GridSensitivity(B, σ, d) =
// 2 S1/(ρ + 1/η) + g√d (GridDeviceSensitivity), g = σ/2^10, what the ledger
// charges. Per-example gradients are clipped to S1 so Lemma 1 holds even when
// the data are not normalised to ||a|| ≤ 1 (a no-op on normalised data).
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/dataset_view.h"
#include "edgeadmm/discrete_gaussian_sampler.h"
#include "edgeadmm/loss.h"
#include "edgeadmm/real.h"
#include "edgeadmm/regularizer.h"
#include "edgeadmm/result.h"
#include "edgeadmm/span.h"
#include "edgeadmm/workspace.h"

namespace edgeadmm {

enum class LinearizedSchedule : uint8_t {
  kConvex = 0,  // Thm 3: non-smooth R (L1)
  kSmooth = 1,  // Thm 4: twice-differentiable ℓ and R (L2)
};

struct LinearizedAdmmParams {
  Real rho = 1.0;           // ADMM penalty ρ > 0
  Real reg_weight = 0.0;    // λ ≥ 0, weight of R in the global objective
  Regularizer regularizer;  // R (its own weights are multiplied by λ/N)
  uint32_t providers = 1;   // N ≥ 1
  LinearizedSchedule schedule = LinearizedSchedule::kSmooth;
  Real dw = 1.0;          // D_w > 0, bound on ||w*||
  Real s1 = 1.0;          // S1: bound on ||ℓ'||; per-example clip
  Real s2 = 1.0;          // S2: bound on ||R'|| (√d for L1)
  Real s3 = 0.25;         // S3: bound on ||∇²ℓ|| (1/4 logistic)
  Real s4 = 1.0;          // S4: bound on ||∇²R||
  double epsilon = 0.1;   // per-iteration ε > 0
  double delta = 1e-3;    // per-iteration δ ∈ (0, 1)
  bool add_noise = true;  // false: the non-private linearized baseline

  // INVALID_ARGUMENT unless every field is finite and in range.
  Status Validate() const;
  // η_i^{k+1} for a device with m local records.
  Real StepSize(uint32_t k, size_t m) const;
  // Lemma 1: Δ = 2 S1 / (m (ρ + 1/η)).
  Real Sensitivity(uint32_t k, size_t m) const;
  // Thm 1: σ = Δ √(2 ln(1.25/δ)) / ε.
  Real NoiseStd(uint32_t k, size_t m) const;
  // Device-level (all m records replaced) replace-one sensitivity of w_i:
  // the mean of per-example gradients clipped to S1 moves by at most 2 S1,
  // so Δ_dev = 2 S1 / (ρ + 1/η) = m·Δ.
  Real DeviceSensitivity(uint32_t k, size_t m) const;
  // B = S1/(ρ + 1/η): the bound on ‖ḡ‖/(ρ + 1/η), the part of w_i that
  // depends on the data (the guard's bound, grid_gaussian.h).
  Real UpdateBound(uint32_t k, size_t m) const;
  // Δ_dev with the grid's rounding: 2·GridSensitivity(B, σ, dim) (≥ Δ_dev),
  // what the device's ledger charges for a noisy step.
  double GridDeviceSensitivity(uint32_t k, size_t m, size_t dim) const;
};

struct LinearizedAdmmReport {
  Real step_size = 0;    // η_i^{k+1}
  Real sensitivity = 0;  // Δ_{i,k+1}
  Real noise_std = 0;    // σ_{i,k+1} (0 when add_noise is false)
};

class LinearizedAdmmStep {
 public:
  // Workspace bytes: margins (m), gradient and regularizer subgradient (d),
  // and the per-record row norms for the per-example clip (m).
  static constexpr size_t WorkspaceBytes(size_t samples, size_t dim) {
    return 2 * Workspace::Bytes<Real>(samples) +
           2 * Workspace::Bytes<Real>(dim);
  }

  // RESOURCE_EXHAUSTED if `ws` is too small; INVALID_ARGUMENT for a bad loss.
  Status Init(Workspace& ws, const DatasetView& data, const Loss& loss);

  // (3a)+(3b): w_tilde holds w̃_i^k on entry and w̃_i^{k+1} on return.
  // `w_global` is w^k, `gamma` is γ_i^k, `k` the iteration index.
  // INVALID_ARGUMENT for bad parameters or vectors; FAILED_PRECONDITION
  // before Init; the grid noise's errors (grid_gaussian.h, e.g. UNAVAILABLE
  // if the DRBG fails) with w_tilde unchanged.
  Result<LinearizedAdmmReport> Run(const LinearizedAdmmParams& params,
                                   uint32_t k, Span<const Real> w_global,
                                   Span<const Real> gamma, Span<Real> w_tilde,
                                   DiscreteGaussianSampler& noise);

  // (3d): γ ← γ − ρ (w̃ − w^{k+1}). INVALID_ARGUMENT on size mismatch or a
  // non-finite new model.
  static Status DualUpdate(Real rho, Span<const Real> w_tilde,
                           Span<const Real> w_new_global, Span<Real> gamma);

 private:
  DatasetView data_;
  bool initialized_ = false;
  Loss loss_;
  Span<Real> margins_;
  Span<Real> row_norms_;
  Span<Real> grad_;
  Span<Real> reg_grad_;
};

}  // namespace edgeadmm
