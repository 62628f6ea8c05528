// Party x_m-update of ADMM sharing over distributed features (paper 000, Hu
// et al., "Learning Privately over Distributed Features"; digest 000 part A).
//
// Party m holds the column block D_m (N x p_m, row-major, mapped, never
// copied) and its model x̃_m. Each round (Jacobi, Alg. 1) it reads the
// broadcast y^t and v^t = Σ_k D_k x̃_k^t − z^t in blocks of rows and computes
//   x_m^{t+1} = argmin λ/2·||x||² + ⟨y^t, D_m x⟩
//                      + (ρ/2)·||v^t − D_m x̃_m^t + D_m x||²      (eq. 6 / 16)
// in closed form: (λI + ρD_mᵀD_m)·x = −D_mᵀ(y^t + ρ(v^t − D_m x̃_m^t)).
// Regularizer choice: R_m = ½||x||², so λ' = λ (digest A2; ||x||² would
// be λ' = 2λ). The p_m x p_m matrix K = λI + ρD_mᵀD_m is Cholesky-factored
// once at Init. The right-hand side g = D_mᵀ(y + ρ(v − D_m x̃)) is
// accumulated row by row (AccumulateBlock) so the device never holds an
// N-vector; the share D_m x̃ is produced row by row (ShareBlock).
//
// Noise modes (digest A8 pitfall 3):
//   kNone      x̃ = x (eq. 6).
//   kPaper     x̃ = x + ξ, ξ ~ N(0, σ²(D_mᵀD_m + κI)⁻¹) (eq. 16) with
//              κ = λ/ρ: then D_mᵀD_m + κI = K/ρ, so ξ = σ√ρ·L⁻ᵀ·g,
//              g ~ N(0, I), L = chol(K) — no second factor; g_i is
//              drawn on the grid 2^-kNoiseGridBits, k_i·2^-10 with k_i ~
//              N_Z(0, 4^kNoiseGridBits) (exact, no Box–Muller). κ > 0 is needed
//              for one-hot data (pitfall 2: D_mᵀD_m is singular on a9a).
//   kRigorous  x̃ = x scaled by ClipModel so that the share on the grid
//              g = σ·2^-kNoiseGridBits, r_i = round((D_m x̃)_i/g), has
//              g·||r||₂ ≤ C (the job's share clip, Δ/2), checked in exact
//              integers; ShareBlock releases g·(r_i + k_i), k_i ~
//              N_Z(0, 4^kNoiseGridBits) (grid_gaussian.h): the discrete
//              Gaussian mechanism on the integers r, of L2 sensitivity
//              Δ/g = 2C/g whatever the party's data (docs/privacy.md,
//              "Bounded shares"). The released share is
//              then not D_m x̃, so the next round's AccumulateBlock must get
//              the released share back (own_share) or u without it (what
//              the gateway sends): pitfall 1. A streaming device uses the
//              ShareBlock overload with a per-round noise key, whose noise a
//              resent block repeats bit for bit (share_noise_stream.h).
// Served by job "admm-sharing" (steps/admm_sharing_task.cc): with the whole
// N-vectors in one block (LocalTrainer::RunAdmmSharing), or streamed in row
// blocks (LocalTrainer::*SharingStream, a DeviceClient with stream_rows),
// which needs StreamingBytes(p, B) for the step (examples/cortex_m4_sharing).
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/discrete_gaussian_sampler.h"
#include "edgeadmm/real.h"
#include "edgeadmm/result.h"
#include "edgeadmm/span.h"
#include "edgeadmm/workspace.h"

namespace edgeadmm {

enum class SharingNoise : uint8_t { kNone = 0, kPaper = 1, kRigorous = 2 };

struct SharingNoiseParams {
  SharingNoise mode = SharingNoise::kNone;
  Real sigma = 0;  // σ ≥ 0 (parameter space for kPaper, share for kRigorous)

  // INVALID_ARGUMENT for an unknown mode or σ negative / not finite.
  Status Validate() const;
};

// One task's public constants (job "admm-sharing"): ρ, λ of the job, the
// noise mode with σ, and for kRigorous the job's explicit L2 sensitivity Δ
// of one released share (what the device ledger charges σ against).
struct SharingTaskParams {
  Real rho = 0;
  Real lambda = 0;
  SharingNoiseParams noise;
  Real sensitivity = 0;
};

// The scoring phase of the job's last iteration (docs/privacy.md,
// "admm-sharing: the partial scores"): the party releases its partial scores
// D_test,m x̃_m(T) of the job's test records, either on the grid of σ_s with
// exact discrete Gaussian noise as the share (kGaussian, charged to the device
// ledger as a Gaussian of σ_s with the job's explicit L2 sensitivity Δ_s of the
// score vector) or exactly (kExact: an uncovered release the operator opted
// into; the device needs allow_unaccounted_steps).
enum class SharingScoreNoise : uint8_t { kGaussian = 1, kExact = 2 };
struct SharingScoreParams {
  SharingScoreNoise noise = SharingScoreNoise::kGaussian;
  Real sigma = 0;        // kGaussian: > 0; kExact: 0
  Real sensitivity = 0;  // kGaussian: Δ_s > 0; kExact: 0

  // INVALID_ARGUMENT unless kGaussian with σ_s, Δ_s finite and > 0 or
  // kExact with both 0.
  Status Validate() const;
};

struct SharingSolveReport {
  Real x_norm = 0;       // ||x_m^{t+1}|| before noise
  Real noise_norm = 0;   // ||ξ|| (kPaper), else 0
  Real clip_factor = 1;  // ClipModel's factor on x̃ (LocalTrainer), 1: none
};

// The bounds ClipModel enforces on the released values (docs/privacy.md,
// "Bounded shares"): the L2 norm of the noiseless share D_m x̃ (0: none)
// and of the noiseless partial scores D_test,m x̃ (0: none). With a noise
// σ > 0 the bound holds for the grid point g·r of the vector (grid of that
// σ, grid_gaussian.h), what ShareBlock and ScoreBlock release noise on.
struct SharingClip {
  Real share = 0;        // C = Δ/2
  Real score = 0;        // C_s = Δ_s/2
  Real share_sigma = 0;  // σ of the rigorous share (0: no grid)
  Real score_sigma = 0;  // σ_s of the Gaussian scores (0: no grid)
};

class AdmmSharingStep {
 public:
  // Workspace bytes for p_m = dim: the p x p Cholesky factor, x̃, the
  // right-hand side g and the noise ξ (p each). Independent of N: the caller
  // streams y, v and the share through its own block buffers (2B reals in, B
  // out).
  static constexpr size_t WorkspaceBytes(size_t dim) {
    return Workspace::Bytes<Real>(dim * dim) + 3 * Workspace::Bytes<Real>(dim);
  }

  // Binds D_m (features: samples x dim, row-major; the caller keeps it alive
  // and unchanged) and factors K = λI + ρD_mᵀD_m. x̃ starts at 0 (the
  // paper's initialisation). INVALID_ARGUMENT for zero sizes, a span of the
  // wrong size, NaN/Inf data, λ or ρ not finite and positive;
  // RESOURCE_EXHAUSTED if `ws` is too small; INTERNAL if K is not
  // numerically positive definite.
  Status Init(Workspace& ws, Span<const Real> features, size_t samples,
              size_t dim, Real lambda, Real rho);
  // Init in two parts, for a streamed task whose λ and ρ arrive after its
  // vectors: Bind (the data, x̃ = 0; errors as Init's) lets BeginRound and
  // AccumulateVectorBlock run; Factor(λ, ρ) (INVALID_ARGUMENT, INTERNAL as
  // Init's; FAILED_PRECONDITION before Bind) must come before
  // AccumulateBlock and Solve. Init = Bind + Factor.
  Status Bind(Workspace& ws, Span<const Real> features, size_t samples,
              size_t dim);
  Status Factor(Real lambda, Real rho);

  // Replaces x̃ (a persisted model, dim entries, finite) and abandons a
  // round in progress. FAILED_PRECONDITION before Init; INVALID_ARGUMENT
  // for a wrong size or a non-finite value (x̃ unchanged).
  Status SetModel(Span<const Real> x);
  // Starts a round: g = 0, no rows seen. FAILED_PRECONDITION before Init.
  Status BeginRound();
  // Adds rows [first_row, first_row + y.size()) to g:
  //   g += D_iᵀ·(y_i + ρ(v_i − own_i)),  own_i = D_i x̃ if own_share is empty,
  // else own_share[i − first_row] (the released share, needed in kRigorous).
  // Blocks must arrive in order with no gap or overlap. INVALID_ARGUMENT for
  // mismatched sizes, out-of-order rows or non-finite values (g unchanged);
  // FAILED_PRECONDITION before BeginRound.
  Status AccumulateBlock(size_t first_row, Span<const Real> y,
                         Span<const Real> v, Span<const Real> own_share);
  // The same sum in two passes, for a task whose vectors arrive one after
  // the other (RoundTask.model = u, then .auxiliary = y, over Block2): g is
  // linear in (y, v), so rows [first_row, first_row + values.size()) of
  //   kAuxiliary (y):  g += D_iᵀ y_i
  //   kModel (v or u): g += ρ·D_iᵀ(v_i − own_i)   (own_i as above)
  // Each vector's rows arrive in order with no gap or overlap; the two
  // passes may follow or interleave each other, before or after Factor
  // (the kModel sum is kept without ρ and scaled at Solve). AccumulateBlock is
  // both at once (rounding differs: the terms are summed in another order).
  // Errors as AccumulateBlock's; own_share must be empty for kAuxiliary.
  enum class Vector : uint8_t { kModel = 0, kAuxiliary = 1 };
  Status AccumulateVectorBlock(Vector which, size_t first_row,
                               Span<const Real> values,
                               Span<const Real> own_share);
  // Solves K x = −g once every row was accumulated and sets x̃ (kPaper: plus
  // ξ). FAILED_PRECONDITION before BeginRound or with rows missing;
  // INVALID_ARGUMENT for bad noise params; sampler errors (x̃ unchanged;
  // the round must be restarted with BeginRound).
  Result<SharingSolveReport> Solve(const SharingNoiseParams& noise,
                                   DiscreteGaussianSampler& sampler);
  // Scales x̃ by a factor in [0, 1] so that ||D_m x̃||₂ ≤ clip.share (if
  // > 0) and ||T x̃||₂ ≤ clip.score for the rows of `test_rows` (K x dim,
  // row-major; if clip.score > 0). Without a σ: the largest such factor,
  // with a relative margin of 64 machine epsilons. With σ > 0 (the grid
  // release): a first pass clips the real norm to C − g·√n/2 (n values;
  // in exact arithmetic rounding then stays within C; at least min(C, g/2);
  // C taken at most 2^29 grid steps, the grid's range),
  // then a second pass computes the grid points r exactly as the release
  // will and checks Σ r_i² ≤ GridBallBound(C, σ) in integers, shrinking x̃
  // until it holds (x̃ = 0 at worst). Every later share (ShareBlock, a
  // streamed share from the persisted x̃) and score is then within the
  // bound, whatever D_m, D_test,m and the round's inputs: the sensitivity
  // follows from the clip (2·clip under replacement of any part of the
  // party's data). Returns the factor. FAILED_PRECONDITION before Init;
  // INVALID_ARGUMENT for a negative or non-finite clip or σ, or test rows
  // of the wrong size or non-finite.
  Result<Real> ClipModel(const SharingClip& clip, Span<const Real> test_rows);

  // Writes rows [first_row, first_row + out.size()) of the share D_m x̃
  // (kRigorous with σ > 0: g·(r_i + k_i), r_i its grid point and k_i a
  // draw of N_Z(0, 4^kNoiseGridBits) from `sampler`). INVALID_ARGUMENT for
  // rows out of range or bad noise params; OUT_OF_RANGE for a share entry
  // beyond 2^30 grid steps (no ClipModel); sampler errors (out must be
  // discarded).
  Status ShareBlock(size_t first_row, const SharingNoiseParams& noise,
                    DiscreteGaussianSampler& sampler, Span<Real> out) const;

  // ShareBlock with reproducible noise, for a device that streams its share
  // and cannot persist it (share_noise_stream.h): kRigorous takes k_i from
  // row i's draw under the round's `noise_key` (ShareNoiseStream::kKeyBytes,
  // persisted with x̃ before the first block is sent), so rows produced again
  // are bit-identical whatever the block boundaries. Errors as above, and
  // ShareNoiseStream::Open's and Next's.
  Status ShareBlock(size_t first_row, const SharingNoiseParams& noise,
                    ConstByteSpan noise_key, Span<Real> out) const;

  // Bytes a streaming party needs in all for block size B: the step's
  // workspace and two B-row buffers (the y and u blocks in; the share block
  // out reuses one of them). A formula in p and B only, never N.
  static constexpr size_t StreamingBytes(size_t dim, size_t block_rows) {
    return WorkspaceBytes(dim) + 2 * Workspace::Bytes<Real>(block_rows);
  }

  // Partial scores of test records (scoring phase): out[i] = t_iᵀ x̃ for
  // the rows t_i of `test_rows` (out.size() x dim, row-major); kGaussian:
  // g·(r_i + k_i) on the grid of σ_s as ShareBlock, after checking the
  // guard Σ r_i² ≤ GridBallBound(Δ_s/2, σ_s) (FAILED_PRECONDITION if x̃
  // was not clipped for these rows: nothing is released). Also
  // FAILED_PRECONDITION before Init; INVALID_ARGUMENT for a span of the
  // wrong size, a non-finite test value or bad params; OUT_OF_RANGE as
  // GridPoint; sampler errors (out must be discarded).
  Status ScoreBlock(Span<const Real> test_rows,
                    const SharingScoreParams& params,
                    DiscreteGaussianSampler& sampler, Span<Real> out) const;

  // The party's current model x̃_m (dim entries; empty before Init).
  Span<const Real> x_tilde() const { return x_; }
  size_t samples() const { return samples_; }
  size_t dim() const { return dim_; }

 private:
  // The share rows without noise, after the checks both ShareBlocks make.
  Status NoiselessShareBlock(size_t first_row, const SharingNoiseParams& noise,
                             Span<Real> out) const;
  // Grid point of share row i (kRigorous): the one computation the check
  // of ClipModel and both ShareBlocks share, so all see the same integers.
  Result<int32_t> ShareGridPoint(size_t i, Real sigma) const;
  // ClipModel's exact check and shrinking (σ > 0 only).
  Result<Real> EnforceGridBounds(const SharingClip& clip,
                                 Span<const Real> test_rows);
  Span<const Real> Row(size_t i) const {
    return Span<const Real>(features_ + i * dim_, dim_);
  }

  const Real* features_ = nullptr;
  size_t samples_ = 0;
  size_t dim_ = 0;
  Real rho_ = 0;
  Span<Real> factor_;  // lower Cholesky factor L of K (row-major p x p)
  Span<Real> x_;       // x̃_m
  Span<Real> g_;       // right-hand side accumulator, then x
  Span<Real> xi_;      // g_u = Σ D_iᵀ(v_i − own_i) until Solve, then ξ
  size_t model_rows_ = 0;      // rows of v accumulated
  size_t auxiliary_rows_ = 0;  // rows of y accumulated
  bool in_round_ = false;
  bool initialized_ = false;  // Bind done
  bool factored_ = false;     // Factor done
};

}  // namespace edgeadmm
