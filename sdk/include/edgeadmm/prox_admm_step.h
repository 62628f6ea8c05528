// Exact-prox private ADMM local step of paper 002 (Cyffers, Bellet, Basu).
//
// Alg. 3 LocalADMMstep with the clipping of App. E / Remark 6, on device i:
//   x    = prox_{s f_i}(2z − u_i)                         (eq. 6)
//   Δu_i = 2λ·Clip(x − z, C) + λ·η,   η ~ N(0, σ² I_p)    (eq. 7 + clipping)
//   u_i ← u_i + Δu_i       (or + 2λ·Clip(x − z, C): see noise_in_state)
// The noise std on u is λσ; the data-dependent term 2λ·Clip(x − z, C) has L2
// sensitivity 2λC under zero-out (add/remove) neighbours and 4λC under
// replace-one (digest 002 §1.3.2). The noise is the exact discrete Gaussian
// on the grid of step λσ/2^kNoiseGridBits (grid_gaussian.h), whose rounding
// adds g·√p/2 to the zero-out sensitivity. Clipping makes that bound hold
// whatever the accuracy of the prox, so an unconverged solve costs utility, not
// privacy. The prox step s must equal the step the server uses in z = prox_{s
// r}(ū) (pitfall P1); the paper's γ is s here.
#pragma once

#include <cstddef>
#include <limits>

#include "edgeadmm/dataset_view.h"
#include "edgeadmm/discrete_gaussian_sampler.h"
#include "edgeadmm/grid_gaussian.h"
#include "edgeadmm/loss.h"
#include "edgeadmm/prox_solver.h"
#include "edgeadmm/real.h"
#include "edgeadmm/result.h"
#include "edgeadmm/span.h"
#include "edgeadmm/workspace.h"

namespace edgeadmm {

// Clip threshold meaning "do not clip" (non-private runs only: without
// clipping the step has no bounded sensitivity).
inline constexpr Real kNoClip = std::numeric_limits<Real>::infinity();

struct ProxAdmmParams {
  Real lambda = 0.5;    // relaxation λ ∈ (0, 1]
  Real step = 1.0;      // prox step s > 0 (the paper's γ)
  Real clip = kNoClip;  // C > 0, or kNoClip
  Real sigma = 0.0;     // noise σ ≥ 0; the noise on u has std λσ
  // true: u_i ← u_i + Δu_i including the noise, as paper 002 prints it.
  // false: the noise goes on the wire only, u_i ← u_i + 2λ·Clip(x − z, C),
  // so the device state is a function of its data and the released models.
  // The aggregator's `participation` policy (noise λσ√m_k) is proven only
  // for false; with true it must charge `participation-own-noise`
  // (docs/privacy.md, "participation").
  bool noise_in_state = true;

  // INVALID_ARGUMENT unless every field is finite (clip may be kNoClip) and
  // in range.
  Status Validate() const;
  // Bound on ‖2λ·Clip(x − z, C)‖₂: 2λC (+inf without clipping).
  Real UpdateBound() const { return 2 * lambda * clip; }
  // L2 sensitivity of the released Δu under replace-one neighbours (local
  // DP) for p coordinates: twice the grid vector's bound, 4λC + g·√p with
  // g = λσ/2^kNoiseGridBits (grid_gaussian.h; 4λC when σ = 0).
  double ReplaceOneSensitivity(size_t dim) const {
    return 2 * GridSensitivity(UpdateBound(), NoiseStd(), dim);
  }
  // Noise std on Δu: λσ.
  Real NoiseStd() const { return lambda * sigma; }
};

struct ProxAdmmReport {
  ProxReport prox;     // iterations and achieved KKT residual of the prox
  Real step_norm = 0;  // ||x − z|| before clipping
  bool clipped = false;
};

class ProxAdmmStep {
 public:
  // Workspace bytes Init needs: the prox solver's plus x (kept between
  // rounds as the warm start of the next solve). The prox input 2z − u is
  // built in the caller's Δu buffer.
  static constexpr size_t WorkspaceBytes(LossKind loss, size_t samples,
                                         size_t dim) {
    return ProxSolver::WorkspaceBytes(loss, ProxMethod::kAuto, samples, dim) +
           Workspace::Bytes<Real>(dim);
  }

  // Binds the step to the device's data. RESOURCE_EXHAUSTED if `ws` is too
  // small; INVALID_ARGUMENT for a bad loss.
  Status Init(Workspace& ws, const DatasetView& data, const Loss& loss);
  // As Init for a loss fixed at compile time: links only the prox method
  // that loss uses (ProxSolver::InitFor). INVALID_ARGUMENT also if
  // loss.kind != kLoss.
  template <LossKind kLoss>
  Status InitFor(Workspace& ws, const DatasetView& data, const Loss& loss) {
    initialized_ = false;
    EDGEADMM_TRY(solver_.InitFor<kLoss>(ws, data, loss));
    return FinishInit(ws, data);
  }

  // Runs one local step against the global model z: updates u in place and
  // writes Δu to `delta_u` (which must not overlap z or u). INVALID_ARGUMENT
  // for bad parameters, sizes or non-finite z/u; FAILED_PRECONDITION before
  // Init; UNAVAILABLE if the DRBG fails (then u is unchanged).
  Result<ProxAdmmReport> Run(const ProxAdmmParams& params, Span<const Real> z,
                             Span<Real> u, DiscreteGaussianSampler& noise,
                             Span<Real> delta_u);

 private:
  // After the solver's Init: carves x and marks the step usable.
  Status FinishInit(Workspace& ws, const DatasetView& data);

  DatasetView data_;
  bool initialized_ = false;
  ProxSolver solver_;
  Span<Real> x_;
};

}  // namespace edgeadmm
