// DiscreteGaussianSampler: exact samples of the discrete Gaussian N_Z(0, σ²)
// on the integers, P(k) ∝ exp(−k²/(2σ²)), with σ² = num/den rational, from
// DRBG bytes and integer arithmetic only (Canonne, Kamath, Steinke 2020,
// "The Discrete Gaussian for Differential Privacy", Algorithms 1–3).
//
// Building blocks, each exact:
//   - UniformBelow(n): uniform on {0, …, n−1} by rejection: ⌈log2 n⌉ bits
//     from ⌈log2 n / 8⌉ bytes (little-endian), redrawn while ≥ n.
//   - BernoulliExp(n/d): Bernoulli(exp(−n/d)) (CKS Alg. 1). For γ ∈ [0, 1]:
//     K = 1; while Bernoulli(γ/K) { K += 1 }; return K odd. Bernoulli(γ/K)
//     is Bernoulli(n/d) AND Bernoulli(1/K), two independent draws, so no
//     product d·K is formed. For γ > 1: ⌊γ⌋ draws of Bernoulli(exp(−1)),
//     all 1, then Bernoulli(exp(−(γ − ⌊γ⌋))).
//   - DiscreteLaplace(s, t): P(x) ∝ exp(−|x|·s/t) (CKS Alg. 2): U uniform
//     on {0..t−1} kept with probability exp(−U/t), V ~ Geometric(1 − e^-1)
//     (count of Bernoulli(exp(−1)) successes), X = ⌊(U + t·V)/s⌋, a fair
//     sign, and (sign −, X = 0) rejected.
//   - Sample: t = ⌊σ⌋ + 1; Y = DiscreteLaplace(1, t); accept Y with
//     probability exp(−(|Y| − σ²/t)²/(2σ²)) (CKS Alg. 3), i.e. with
//     γ = (|Y|·den·t − num)² / (2·num·den·t²), formed exactly in 128 bits.
// Nothing in the sampling path is floating point, so the same bytes give the
// same integers on every target (host, Cortex-M4F). Each draw consumes a
// random number of bytes: the expected number of loop iterations is
// bounded by a constant (CKS 2020's running-time analysis), and each uniform
// takes the byte length of its range, so the mean grows like log σ
// (measured: 15 B per draw at σ² = 1/4, 48 B at σ² = 2^31).
//
// Ranges (DiscreteGaussian::Create): σ² = num/den with num, den ≥ 1
// (reduced by their gcd first) and b = 2·num·den·t² < 2^64. Then den·t <
// 2^63 and every |k| ≤ max_magnitude = ⌊(2^63 − 1)/(den·t)⌋ gives an
// exact γ numerator below 2^126. max_magnitude/σ > 2^31 (since
// t·sqrt(num·den) < 2^31.5), and a Laplace proposal beyond it restarts the
// draw: the output is N_Z(0, σ²) conditioned on |k| ≤ max_magnitude, whose
// mass outside is below 6·exp(−2^61) < exp(−2^60) (docs/privacy.md, "Discrete
// Gaussian"). Everything else is refused with OUT_OF_RANGE (σ² = 0:
// INVALID_ARGUMENT). Examples: den = 1 allows σ² up to about 2^31; σ² = p²/q²
// (a stddev ratio p/q) needs roughly p·q·max(p/q, 1) < 2^31.
//
// No heap; bytes are fetched in blocks of kBufferBytes and wiped when used.
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/random_byte_source.h"
#include "edgeadmm/real.h"
#include "edgeadmm/result.h"
#include "edgeadmm/span.h"
#include "edgeadmm/status.h"

namespace edgeadmm {

// The parameters of N_Z(0, σ²), σ² = num/den, checked once. Only Create and
// FromStddev make one, so a sampler never sees unchecked (or zero) σ².
class DiscreteGaussian {
 public:
  // σ² = num/den. See the header comment for the accepted range.
  static Result<DiscreteGaussian> Create(uint64_t num, uint64_t den);
  // σ = p/q, i.e. σ² = p²/q² (the grid form: σ/g as a rational). p, q ≥ 1
  // and below 2^32, then as Create: p·q·t < 2^31.5 with t = ⌊p/q⌋ + 1
  // (p/q reduced).
  static Result<DiscreteGaussian> FromStddev(uint64_t p, uint64_t q);

  uint64_t num() const { return num_; }  // σ² numerator (reduced)
  uint64_t den() const { return den_; }  // σ² denominator (reduced)
  uint64_t t() const { return t_; }  // ⌊σ⌋ + 1, the Laplace scale (Alg. 3)
  uint64_t den_t() const { return den_t_; }                  // den·t
  uint64_t gamma_den() const { return gamma_den_; }          // 2·num·den·t²
  uint64_t max_magnitude() const { return max_magnitude_; }  // largest |k|

 private:
  DiscreteGaussian() = default;

  uint64_t num_ = 0;
  uint64_t den_ = 1;
  uint64_t t_ = 1;
  uint64_t den_t_ = 1;
  uint64_t gamma_den_ = 2;
  uint64_t max_magnitude_ = 0;
};

class DiscreteGaussianSampler {
 public:
  static constexpr size_t kBufferBytes = 64;

  // `source` must be ready before the first draw and outlive the sampler.
  explicit DiscreteGaussianSampler(RandomByteSource& source);
  ~DiscreteGaussianSampler();
  DiscreteGaussianSampler(const DiscreteGaussianSampler&) = delete;
  DiscreteGaussianSampler& operator=(const DiscreteGaussianSampler&) = delete;

  // Uniform on {0, …, n − 1}; INVALID_ARGUMENT if n = 0.
  Result<uint64_t> UniformBelow(uint64_t n);
  // Bernoulli(n/d); INVALID_ARGUMENT unless n ≤ d and d ≥ 1.
  Result<bool> Bernoulli(uint64_t n, uint64_t d);
  // Bernoulli(exp(−n/d)) (CKS Alg. 1); INVALID_ARGUMENT if d = 0.
  Result<bool> BernoulliExp(uint64_t n, uint64_t d);
  // P(x) ∝ exp(−|x|·s/t) on the integers (CKS Alg. 2); INVALID_ARGUMENT if
  // s or t is 0 or t ≥ 2^63. |x| is at most ⌊(2^64 − s)/s⌋ capped at
  // 2^63 − 1: a proposal beyond restarts (conditioning; its probability is
  // below exp(−2^63/t)).
  Result<int64_t> DiscreteLaplace(uint64_t s, uint64_t t);

  // One draw of N_Z(0, σ²) (CKS Alg. 3).
  Result<int64_t> Sample(const DiscreteGaussian& noise);
  // out[i] = a fresh draw each.
  Status Sample(const DiscreteGaussian& noise, Span<int64_t> out);
  // out[i] = step·k_i, k_i ~ N_Z(0, σ²) with σ = σ_real/step given as the
  // rational of `noise` (the grid of step `step`). INVALID_ARGUMENT unless
  // step is finite and > 0. The product is a double: exact while
  // |k_i| < 2^53 and step·k_i is representable.
  Status SampleOnGrid(const DiscreteGaussian& noise, Real step, Span<Real> out);

  // Wipes the buffered bytes: the next draw reads only fresh bytes of the
  // source (LocalTrainer::Init, after the DRBG is seeded again; a keyed
  // stream re-positioned at its next chunk, ShareNoiseStream).
  void Discard();

  // Source errors are passed on (for a Drbg: FAILED_PRECONDITION,
  // UNAVAILABLE); after one, the sampler may have consumed bytes.

 private:
  Result<uint64_t> NextBytes(size_t count);
  // Bernoulli(exp(−(q + r/d))), q = quotient (128-bit), 0 ≤ r < d.
  Result<bool> BernoulliExpSplit(uint64_t q_hi, uint64_t q_lo, uint64_t r,
                                 uint64_t d);
  // Bernoulli(exp(−r/d)), 0 ≤ r ≤ d (CKS Alg. 1, γ ∈ [0, 1]).
  Result<bool> BernoulliExpAtMostOne(uint64_t r, uint64_t d);
  // CKS Alg. 2 with |x| ≤ x_max (a larger proposal restarts).
  Result<int64_t> Laplace(uint64_t s, uint64_t t, uint64_t x_max);

  RandomByteSource& source_;
  uint8_t buffer_[kBufferBytes];
  size_t buffer_used_ = kBufferBytes;
};

}  // namespace edgeadmm
