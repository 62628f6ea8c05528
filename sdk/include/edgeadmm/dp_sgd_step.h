// Proximal DP-SGD / DP-FedAvg local step: the baseline papers 002 (App. E)
// and 004 compare against, run on the device with user-level clipping.
//
// From the global model z, E full-batch gradient steps on the local loss:
//   w ← z;  repeat E times: w ← w − η ∇f_i(w)
//   Δ = Clip(w − z, C) + ξ,   ξ ~ N(0, σ² I_p)
// With E = 1 this is Δ = Clip(−η∇f_i(z), C) + ξ, the clipped-gradient
// update of DP-SGD; the server then applies z ← prox_{η r}(z + mean Δ)
// (proximal step on the regularizer). Sensitivity of Δ: C under zero-out
// neighbours, 2C under replace-one; the noise std is σ, drawn as the exact
// discrete Gaussian on the grid σ/2^kNoiseGridBits (grid_gaussian.h), which
// adds g·√p/2 to the zero-out sensitivity.
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/dataset_view.h"
#include "edgeadmm/discrete_gaussian_sampler.h"
#include "edgeadmm/grid_gaussian.h"
#include "edgeadmm/loss.h"
#include "edgeadmm/real.h"
#include "edgeadmm/result.h"
#include "edgeadmm/span.h"
#include "edgeadmm/workspace.h"

namespace edgeadmm {

struct DpSgdParams {
  Real learning_rate = ToReal(0.1);  // η > 0
  uint32_t local_steps = 1;          // E ≥ 1
  Real clip = 1.0;   // C > 0 (kNoClip-free: DP-SGD always clips)
  Real sigma = 0.0;  // noise std σ ≥ 0 on Δ

  Status Validate() const;  // INVALID_ARGUMENT when out of range
  // Replace-one L2 sensitivity of the released Δ (p coordinates): 2C + g·√p
  // with g = σ/2^kNoiseGridBits (grid_gaussian.h; 2C when σ = 0).
  double ReplaceOneSensitivity(size_t dim) const {
    return 2 * GridSensitivity(clip, sigma, dim);
  }
};

struct DpSgdReport {
  Real update_norm = 0;  // ||w − z|| before clipping
  bool clipped = false;
  Real final_loss = 0;  // f_i(w) after the last local step
};

class DpSgdStep {
 public:
  // Workspace bytes: margins (m), gradient and local iterate (p).
  static constexpr size_t WorkspaceBytes(size_t samples, size_t dim) {
    return Workspace::Bytes<Real>(samples) + 2 * Workspace::Bytes<Real>(dim);
  }

  Status Init(Workspace& ws, const DatasetView& data, const Loss& loss);

  // Writes Δ into `delta`. INVALID_ARGUMENT for bad parameters or vectors;
  // FAILED_PRECONDITION before Init; UNAVAILABLE if the DRBG fails.
  Result<DpSgdReport> Run(const DpSgdParams& params, Span<const Real> z,
                          DiscreteGaussianSampler& noise, Span<Real> delta);

 private:
  DatasetView data_;
  bool initialized_ = false;
  Loss loss_;
  Span<Real> margins_;
  Span<Real> grad_;
  Span<Real> w_;
};

}  // namespace edgeadmm
