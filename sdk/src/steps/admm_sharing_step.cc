#include "edgeadmm/admm_sharing_step.h"

#include <cmath>
#include <cstdint>
#include <limits>

#include "edgeadmm/grid_gaussian.h"
#include "edgeadmm/share_noise_stream.h"
#include "edgeadmm/vector_checks.h"
#include "math/dense_cholesky.h"
#include "math/span_map.h"
#include "math/vector_ops.h"

namespace edgeadmm {

Status SharingNoiseParams::Validate() const {
  const bool mode_ok = mode == SharingNoise::kNone ||
                       mode == SharingNoise::kPaper ||
                       mode == SharingNoise::kRigorous;
  if (!mode_ok || !std::isfinite(sigma) || sigma < 0) {
    return Status::InvalidArgument();
  }
  return Status::Ok();
}

Status AdmmSharingStep::Init(Workspace& ws, Span<const Real> features,
                             size_t samples, size_t dim, Real lambda,
                             Real rho) {
  EDGEADMM_TRY(Bind(ws, features, samples, dim));
  return Factor(lambda, rho);
}

Status AdmmSharingStep::Bind(Workspace& ws, Span<const Real> features,
                             size_t samples, size_t dim) {
  initialized_ = false;
  factored_ = false;
  in_round_ = false;
  if (samples == 0 || dim == 0 || features.size() / dim != samples ||
      features.size() % dim != 0 ||
      !IsFiniteVector(features, features.size())) {
    return Status::InvalidArgument();
  }
  EDGEADMM_TRY_ASSIGN(factor_, ws.Allocate<Real>(dim * dim));
  EDGEADMM_TRY_ASSIGN(x_, ws.Allocate<Real>(dim));
  EDGEADMM_TRY_ASSIGN(g_, ws.Allocate<Real>(dim));
  EDGEADMM_TRY_ASSIGN(xi_, ws.Allocate<Real>(dim));
  features_ = features.data();
  samples_ = samples;
  dim_ = dim;
  for (size_t c = 0; c < dim; ++c) x_[c] = 0;
  initialized_ = true;
  return Status::Ok();
}

Status AdmmSharingStep::Factor(Real lambda, Real rho) {
  if (!initialized_) return Status::FailedPrecondition();
  factored_ = false;
  if (!IsPositive(lambda) || !IsPositive(rho)) return Status::InvalidArgument();
  rho_ = rho;
  // K = λI + ρ·Σ_i D_iᵀD_i (lower triangle), one pass over the rows.
  const size_t dim = dim_;
  Real* k = factor_.data();
  for (size_t i = 0; i < dim * dim; ++i) k[i] = 0;
  for (size_t i = 0; i < samples_; ++i) {
    const Real* a = features_ + i * dim;
    for (size_t r = 0; r < dim; ++r) {
      if (a[r] == 0) continue;  // one-hot rows are mostly zero
      const Real ar = rho * a[r];
      for (size_t c = 0; c <= r; ++c) k[r * dim + c] += ar * a[c];
    }
  }
  for (size_t r = 0; r < dim; ++r) k[r * dim + r] += lambda;
  if (!internal::CholeskyFactorInPlace(
          MatrixMap(k, internal::Index(dim), internal::Index(dim)))) {
    return Status::Internal();
  }
  factored_ = true;
  return Status::Ok();
}

Status AdmmSharingStep::SetModel(Span<const Real> x) {
  if (!initialized_) return Status::FailedPrecondition();
  if (x.size() != dim_) return Status::InvalidArgument();
  for (size_t c = 0; c < dim_; ++c) {
    if (!std::isfinite(x[c])) return Status::InvalidArgument();
  }
  for (size_t c = 0; c < dim_; ++c) x_[c] = x[c];
  in_round_ = false;
  return Status::Ok();
}

Status AdmmSharingStep::BeginRound() {
  if (!initialized_) return Status::FailedPrecondition();
  for (size_t c = 0; c < dim_; ++c) g_[c] = 0;
  for (size_t c = 0; c < dim_; ++c) xi_[c] = 0;  // g_u until Solve
  model_rows_ = 0;
  auxiliary_rows_ = 0;
  in_round_ = true;
  return Status::Ok();
}

Status AdmmSharingStep::AccumulateBlock(size_t first_row, Span<const Real> y,
                                        Span<const Real> v,
                                        Span<const Real> own_share) {
  if (!in_round_ || !factored_) return Status::FailedPrecondition();
  const size_t b = y.size();
  if (first_row != model_rows_ || first_row != auxiliary_rows_ ||
      v.size() != b || (!own_share.empty() && own_share.size() != b) ||
      b > samples_ - first_row || !IsFiniteVector(y, b) ||
      !IsFiniteVector(v, b) ||
      (!own_share.empty() && !IsFiniteVector(own_share, b))) {
    return Status::InvalidArgument();
  }
  // eq. (6): g = D_mᵀ(y + ρ(Σ_{k≠m} D_k x̃_k − z)), with the other parties'
  // sum recovered as v − own share (Alg. 1 lines 3, 4, 12).
  for (size_t j = 0; j < b; ++j) {
    const Span<const Real> a = Row(first_row + j);
    const Real own = own_share.empty() ? internal::Dot(a, x_) : own_share[j];
    internal::Axpy(y[j] + rho_ * (v[j] - own), a, g_);
  }
  model_rows_ += b;
  auxiliary_rows_ += b;
  return Status::Ok();
}

Status AdmmSharingStep::AccumulateVectorBlock(Vector which, size_t first_row,
                                              Span<const Real> values,
                                              Span<const Real> own_share) {
  if (!in_round_) return Status::FailedPrecondition();
  const bool model = which == Vector::kModel;
  if (!model && which != Vector::kAuxiliary) return Status::InvalidArgument();
  size_t& seen = model ? model_rows_ : auxiliary_rows_;
  const size_t b = values.size();
  if (first_row != seen || b > samples_ - first_row ||
      (!model && !own_share.empty()) ||
      (!own_share.empty() && own_share.size() != b) ||
      !IsFiniteVector(values, b) ||
      (!own_share.empty() && !IsFiniteVector(own_share, b))) {
    return Status::InvalidArgument();
  }
  // eq. (6)'s right-hand side split by linearity: D_mᵀy + ρ·g_u with
  // g_u = D_mᵀ(v − D_m x̃), kept in xi_ until Solve (ρ may not be known yet:
  // a streamed task carries its params after its vectors).
  for (size_t j = 0; j < b; ++j) {
    const Span<const Real> a = Row(first_row + j);
    if (model) {
      const Real own = own_share.empty() ? internal::Dot(a, x_) : own_share[j];
      internal::Axpy(values[j] - own, a, xi_);
    } else {
      internal::Axpy(values[j], a, g_);
    }
  }
  seen += b;
  return Status::Ok();
}

Result<SharingSolveReport> AdmmSharingStep::Solve(
    const SharingNoiseParams& noise, DiscreteGaussianSampler& sampler) {
  if (!in_round_ || !factored_ || model_rows_ != samples_ ||
      auxiliary_rows_ != samples_) {
    return Status::FailedPrecondition();
  }
  EDGEADMM_TRY(noise.Validate());
  internal::Axpy(rho_, xi_, g_);  // g = D_mᵀy + ρ·g_u (g_u = 0 if unused)
  const MatrixMap l(factor_.data(), internal::Index(dim_),
                    internal::Index(dim_));
  // x = −K⁻¹g, computed in g's buffer.
  internal::Scale(-1, g_);
  internal::CholeskySolveInPlace(l, internal::AsVector(g_));
  SharingSolveReport report;
  report.x_norm = internal::Norm(g_);
  if (noise.mode == SharingNoise::kPaper && noise.sigma > 0) {
    // eq. (16): ξ ~ N(0, σ²(D_mᵀD_m + κI)⁻¹), κ = λ/ρ: with K = LLᵀ,
    // ξ = σ√ρ·L⁻ᵀn, n ~ N(0, I), has covariance σ²ρK⁻¹. x̃ is written
    // only after every draw succeeded.
    in_round_ = false;  // g now holds x: a failed draw needs a new round
    // n_c = k_c·2^-bits, k_c ~ N_Z(0, 4^bits): a unit normal on the grid.
    EDGEADMM_TRY_ASSIGN(const DiscreteGaussian unit, GridNoise());
    const Real scale = noise.sigma * std::sqrt(rho_);
    for (size_t c = 0; c < dim_; ++c) {
      EDGEADMM_TRY_ASSIGN(const int64_t k, sampler.Sample(unit));
      xi_[c] = scale * GridValue(k, 1);
    }
    // Lᵀξ = n (back substitution, L read by rows), in xi_.
    for (size_t i = dim_; i-- > 0;) {
      xi_[i] /= l(internal::Index(i), internal::Index(i));
      for (size_t c = 0; c < i; ++c) {
        xi_[c] -= xi_[i] * l(internal::Index(i), internal::Index(c));
      }
    }
    report.noise_norm = internal::Norm(xi_);
    internal::Axpy(1, xi_, g_);
  }
  for (size_t c = 0; c < dim_; ++c) x_[c] = g_[c];
  in_round_ = false;
  return report;
}

namespace {

// The factor in (0, 1] that brings a vector of L2 norm `norm` within
// clip·(1 − 64ε) (1 if clip is 0: no bound).
Real ClipFactor(Real norm, Real clip) {
  const Real target = clip * (1 - 64 * std::numeric_limits<Real>::epsilon());
  return clip > 0 && norm > target ? target / norm : Real(1);
}

// The real-norm target of a grid release of n values within `clip` (C at
// most 2^29 grid steps, in the grid's range): rounding to the grid g adds
// at most g·√n/2 in exact arithmetic, so C − g·√n/2; at least min(C, g/2),
// below which every value rounds to 0. σ = 0: C.
Real GridClipTarget(Real clip, Real sigma, size_t n) {
  if (!(sigma > 0) || !(clip > 0)) return clip;
  const double g =
      std::ldexp(static_cast<double>(sigma), -static_cast<int>(kNoiseGridBits));
  const double range = std::ldexp(g, 29);
  const double c =
      static_cast<double>(clip) < range ? static_cast<double>(clip) : range;
  const double reach = c - g * std::sqrt(static_cast<double>(n)) / 2;
  const double floor = c < g / 2 ? c : g / 2;
  return static_cast<Real>(reach > floor ? reach : floor);
}

// Grid point of test row i's score: the one computation of the scores'
// check and release.
Result<int32_t> ScoreGridPoint(Span<const Real> test_rows, size_t dim, size_t i,
                               Span<const Real> x, Real sigma) {
  return GridPoint(
      internal::Dot(Span<const Real>(test_rows.data() + i * dim, dim), x),
      sigma);
}

// Whether Σ r_i² ≤ K = GridBallBound(radius, σ) for the grid points
// point(0..count−1), in exact integers (each r_i² < 2^60; the sum
// saturates). Otherwise *excess = Σ/K (+inf for K = 0).
template <typename Point>
Result<bool> WithinGridBall(size_t count, Real radius, Real sigma, Point point,
                            double* excess) {
  EDGEADMM_TRY_ASSIGN(const uint64_t k, GridBallBound(radius, sigma));
  uint64_t sum = 0;
  for (size_t i = 0; i < count; ++i) {
    EDGEADMM_TRY_ASSIGN(const int32_t r, point(i));
    const uint64_t m = r < 0 ? uint64_t{0} - static_cast<uint64_t>(int64_t{r})
                             : static_cast<uint64_t>(r);
    const uint64_t sq = m * m;
    sum = sum > UINT64_MAX - sq ? UINT64_MAX : sum + sq;
  }
  if (sum <= k) return true;
  *excess = k > 0 ? static_cast<double>(sum) / static_cast<double>(k)
                  : std::numeric_limits<double>::infinity();
  return false;
}

// Shrinking passes of EnforceGridBounds before x̃ is set to 0.
constexpr int kMaxGridPasses = 16;

}  // namespace

Result<int32_t> AdmmSharingStep::ShareGridPoint(size_t i, Real sigma) const {
  return GridPoint(internal::Dot(Row(i), x_), sigma);
}

Result<Real> AdmmSharingStep::ClipModel(const SharingClip& clip,
                                        Span<const Real> test_rows) {
  if (!initialized_) return Status::FailedPrecondition();
  const auto bad = [](Real x) { return !std::isfinite(x) || x < 0; };
  if (bad(clip.share) || bad(clip.score) || bad(clip.share_sigma) ||
      bad(clip.score_sigma) || test_rows.size() % dim_ != 0 ||
      !IsFiniteVector(test_rows, test_rows.size())) {
    return Status::InvalidArgument();
  }
  const size_t test_count = test_rows.size() / dim_;
  const Real share_target =
      GridClipTarget(clip.share, clip.share_sigma, samples_);
  const Real score_target =
      GridClipTarget(clip.score, clip.score_sigma, test_count);
  // ||D_m x̃||² row by row (the share's rows as ShareBlock computes them),
  // then the same for the test rows; a pass only for a bound asked for.
  Real share_sq = 0;
  for (size_t i = 0; share_target > 0 && i < samples_; ++i) {
    const Real s = internal::Dot(Row(i), x_);
    share_sq += s * s;
  }
  Real score_sq = 0;
  for (size_t i = 0; score_target > 0 && i < test_count; ++i) {
    const Real s =
        internal::Dot(Span<const Real>(test_rows.data() + i * dim_, dim_), x_);
    score_sq += s * s;
  }
  const Real share_factor = ClipFactor(std::sqrt(share_sq), share_target);
  const Real score_factor = ClipFactor(std::sqrt(score_sq), score_target);
  Real factor = share_factor < score_factor ? share_factor : score_factor;
  if (factor < 1) internal::Scale(factor, x_);
  if ((clip.share > 0 && clip.share_sigma > 0) ||
      (clip.score > 0 && clip.score_sigma > 0)) {
    EDGEADMM_TRY_ASSIGN(const Real more, EnforceGridBounds(clip, test_rows));
    factor *= more;
  }
  return factor;
}

Result<Real> AdmmSharingStep::EnforceGridBounds(const SharingClip& clip,
                                                Span<const Real> test_rows) {
  const bool share = clip.share > 0 && clip.share_sigma > 0;
  const bool score = clip.score > 0 && clip.score_sigma > 0;
  const size_t test_count = test_rows.size() / dim_;
  Real factor = 1;
  for (int pass = 0;; ++pass) {
    // The released integers, computed as the release computes them.
    double share_excess = 0;
    double score_excess = 0;
    bool share_ok = true;
    bool score_ok = true;
    if (share) {
      EDGEADMM_TRY_ASSIGN(
          share_ok,
          WithinGridBall(
              samples_, clip.share, clip.share_sigma,
              [&](size_t i) { return ShareGridPoint(i, clip.share_sigma); },
              &share_excess));
    }
    if (score) {
      EDGEADMM_TRY_ASSIGN(score_ok,
                          WithinGridBall(
                              test_count, clip.score, clip.score_sigma,
                              [&](size_t i) {
                                return ScoreGridPoint(test_rows, dim_, i, x_,
                                                      clip.score_sigma);
                              },
                              &score_excess));
    }
    if (share_ok && score_ok) return factor;
    // Floating-point error of the first pass: shrink by the excess (and a
    // margin); after kMaxGridPasses, x̃ = 0 (every r_i = 0 then).
    const double excess =
        share_excess > score_excess ? share_excess : score_excess;
    const Real shrink =
        pass < kMaxGridPasses
            ? static_cast<Real>(std::sqrt(1 / excess) * (1 - 1.0 / 1024))
            : Real(0);
    internal::Scale(shrink, x_);
    factor *= shrink;
  }
}

Status AdmmSharingStep::NoiselessShareBlock(size_t first_row,
                                            const SharingNoiseParams& noise,
                                            Span<Real> out) const {
  if (!initialized_) return Status::FailedPrecondition();
  EDGEADMM_TRY(noise.Validate());
  if (first_row > samples_ || out.size() > samples_ - first_row) {
    return Status::InvalidArgument();
  }
  if (noise.mode == SharingNoise::kRigorous && noise.sigma > 0) {
    return Status::Ok();  // the grid release computes the rows itself
  }
  // Alg. 1 line 7: the share D_m x̃_m, one row at a time from x̃_m.
  for (size_t j = 0; j < out.size(); ++j) {
    out[j] = internal::Dot(Row(first_row + j), x_);
  }
  return Status::Ok();
}

Status AdmmSharingStep::ShareBlock(size_t first_row,
                                   const SharingNoiseParams& noise,
                                   DiscreteGaussianSampler& sampler,
                                   Span<Real> out) const {
  EDGEADMM_TRY(NoiselessShareBlock(first_row, noise, out));
  if (noise.mode != SharingNoise::kRigorous || !(noise.sigma > 0)) {
    return Status::Ok();
  }
  // g·(r_i + k_i) (grid_gaussian.h, steps 3–4).
  EDGEADMM_TRY_ASSIGN(const DiscreteGaussian grid_noise, GridNoise());
  for (size_t j = 0; j < out.size(); ++j) {
    EDGEADMM_TRY_ASSIGN(const int32_t r,
                        ShareGridPoint(first_row + j, noise.sigma));
    EDGEADMM_TRY_ASSIGN(const int64_t k, sampler.Sample(grid_noise));
    out[j] = GridValue(int64_t{r} + k, noise.sigma);
  }
  return Status::Ok();
}

Status AdmmSharingStep::ShareBlock(size_t first_row,
                                   const SharingNoiseParams& noise,
                                   ConstByteSpan noise_key,
                                   Span<Real> out) const {
  if (noise_key.size() != ShareNoiseStream::kKeyBytes) {
    return Status::InvalidArgument();
  }
  EDGEADMM_TRY(NoiselessShareBlock(first_row, noise, out));
  if (noise.mode != SharingNoise::kRigorous || !(noise.sigma > 0) ||
      out.empty()) {
    return Status::Ok();
  }
  // As above, k_i from row i's draw under the key.
  ShareNoiseStream stream;
  EDGEADMM_TRY(stream.Open(noise_key, first_row));
  for (size_t j = 0; j < out.size(); ++j) {
    EDGEADMM_TRY_ASSIGN(const int32_t r,
                        ShareGridPoint(first_row + j, noise.sigma));
    EDGEADMM_TRY_ASSIGN(const int64_t k, stream.Next());
    out[j] = GridValue(int64_t{r} + k, noise.sigma);
  }
  return Status::Ok();
}

Status SharingScoreParams::Validate() const {
  if (noise == SharingScoreNoise::kExact) {
    return sigma == 0 && sensitivity == 0 ? Status::Ok()
                                          : Status::InvalidArgument();
  }
  return noise == SharingScoreNoise::kGaussian && IsPositive(sigma) &&
                 IsPositive(sensitivity)
             ? Status::Ok()
             : Status::InvalidArgument();
}

Status AdmmSharingStep::ScoreBlock(Span<const Real> test_rows,
                                   const SharingScoreParams& params,
                                   DiscreteGaussianSampler& sampler,
                                   Span<Real> out) const {
  if (!initialized_) return Status::FailedPrecondition();
  EDGEADMM_TRY(params.Validate());
  if (test_rows.size() / dim_ != out.size() || test_rows.size() % dim_ != 0) {
    return Status::InvalidArgument();
  }
  for (size_t i = 0; i < test_rows.size(); ++i) {
    if (!std::isfinite(test_rows[i])) return Status::InvalidArgument();
  }
  if (params.noise == SharingScoreNoise::kExact) {
    for (size_t i = 0; i < out.size(); ++i) {
      out[i] = internal::Dot(
          Span<const Real>(test_rows.data() + i * dim_, dim_), x_);
    }
    return Status::Ok();
  }
  // Guard: the grid points are within Δ_s/2 (ClipModel made them so) before
  // any noise is drawn.
  const Real sigma = params.sigma;
  const auto point = [&](size_t i) {
    return ScoreGridPoint(test_rows, dim_, i, x_, sigma);
  };
  double excess = 0;
  EDGEADMM_TRY_ASSIGN(const bool within,
                      WithinGridBall(out.size(), params.sensitivity / 2, sigma,
                                     point, &excess));
  if (!within) return Status::FailedPrecondition();
  EDGEADMM_TRY_ASSIGN(const DiscreteGaussian grid_noise, GridNoise());
  for (size_t i = 0; i < out.size(); ++i) {
    EDGEADMM_TRY_ASSIGN(const int32_t r, point(i));
    EDGEADMM_TRY_ASSIGN(const int64_t k, sampler.Sample(grid_noise));
    out[i] = GridValue(int64_t{r} + k, sigma);
  }
  return Status::Ok();
}

}  // namespace edgeadmm
