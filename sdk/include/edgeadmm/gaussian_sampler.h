// GaussianSampler: Gaussian noise in double precision from DRBG bytes.
//
// Uniforms: U ∈ (0, 1) is 2^-(e+1)·(1 + m·2^-52), where e is the number of
// leading zero bits of the byte stream read as 64-bit little-endian words
// (geometric: P(e = k) = 2^-(k+1)) and m is 52 further bits. So U is exactly
// uniform on the doubles of every binade [2^-(e+1), 2^-e), each double
// standing for the interval up to the next one (the continuous uniform
// rounded down). DRBG words per uniform, with z = leading zeros of a word:
//   - z ≤ 11 (probability 1 − 2^-12): one word; m is the 52 bits after its
//     first one bit, i.e. U = w·2^-64 truncated to 53 significant bits;
//   - 12 ≤ z ≤ 63: m is the top 52 bits of a second word;
//   - w = 0 (2^-64): e grows by 64 and counting goes on in the next word.
// Mean 1 + 2^-12 + O(2^-64) words (the old uniform took one). Floor: e ≤
// kMaxLeadingZeros = 1021, so U ≥ 2^-1022 (the smallest normal double); a
// stream with 1022 leading zeros (probability 2^-1022) restarts the draw.
// Rejection, not clamping, so U's law is the ideal one conditioned on
// U ≥ 2^-1022 (docs/privacy.md, "Sampler tails"). Only integer operations
// build U, so the same bytes give the same bits on every target. Bytes are
// fetched in blocks of kBufferBytes (one request per block) and wiped from
// the buffer when consumed.
//
// Normals: the Box–Muller transform (Box and Muller 1958): for independent
// U1, U2 ~ U(0,1), R = sqrt(−2 ln U1) and θ = 2π U2, the pair (R cos θ, R sin
// θ) is two independent N(0, 1) draws. The second value of each pair is kept
// and returned by the next call. R ≤ kMaxRadius = sqrt(2·1022·ln 2) ≈ 37.64
// (U1 ≥ 2^-1022); the ideal P(R > kMaxRadius) = e^{−kMaxRadius²/2} =
// 2^-1022, since R² ~ χ²₂. The uniform used to be k·2^-53 (k < 2^53), so
// |Z| never exceeded sqrt(2·53·ln 2) ≈ 8.57 (issue 13, defect 4).
//
// Floating-point caveat (Mironov, "On significance of the least significant
// bits for differential privacy", CCS 2012): the proofs assume real-valued
// noise, but these samples are doubles produced by a finite-precision
// transform, so their set of attainable values and low-order bits depend on
// the noise scale and on the value noised. Mironov shows that for the
// Laplace mechanism an attacker who sees the exact double can sometimes
// tell neighbouring inputs apart; the same porosity argument applies to
// Gaussian noise computed this way. prox-admm, dp-sgd and dp-admm no longer
// use this class: they add the exact discrete Gaussian on a grid
// (grid_gaussian.h).
// For the steps that still do, the noised vectors are rounded to float32 on
// the wire, which blurs but does not provably remove the effect. The stated
// (ε, δ) guarantees therefore hold for the idealised real-valued mechanism
// (conditioned on the floor above, as docs/privacy.md accounts for).
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/drbg.h"
#include "edgeadmm/random_byte_source.h"
#include "edgeadmm/real.h"
#include "edgeadmm/result.h"
#include "edgeadmm/span.h"
#include "edgeadmm/status.h"

namespace edgeadmm {

class GaussianSampler {
 public:
  // DRBG bytes fetched per request.
  static constexpr size_t kBufferBytes = 256;

  // Most leading zero bits a uniform may have: U ≥ 2^-(kMaxLeadingZeros+1).
  static constexpr uint32_t kMaxLeadingZeros = 1021;
  // Smallest uniform, 2^-1022, and the largest Box–Muller radius,
  // sqrt(−2 ln 2^-1022) = 37.640308673874185...; this is that value rounded
  // to nearest, which is above it and equals the computed radius of the
  // smallest uniform (tests/unit/sdk/noise/gaussian_sampler_test.cc).
  static constexpr double kMinUniform = 0x1p-1022;
  static constexpr double kMaxRadius = 37.64030867387419;

  // `drbg` must be initialised before the first draw and outlive the sampler.
  // In the SDK the source is always a Drbg; tests may pass a scripted one.
  explicit GaussianSampler(RandomByteSource& drbg);
  ~GaussianSampler();
  GaussianSampler(const GaussianSampler&) = delete;
  GaussianSampler& operator=(const GaussianSampler&) = delete;

  // A uniform draw in [kMinUniform, 1 − 2^-53] ⊂ (0, 1), full resolution in
  // every binade (see above). Errors are those of the source's Generate
  // (for a Drbg: FAILED_PRECONDITION, UNAVAILABLE).
  Result<double> Uniform01();

  // A standard normal N(0, 1) draw (Box–Muller). Errors as Uniform01.
  Result<double> Standard();

  // v += N(0, stddev² I). INVALID_ARGUMENT if stddev is negative or not
  // finite; DRBG errors as Uniform01 (then v may be partly noised and must
  // be discarded). stddev = 0 leaves v unchanged and draws nothing.
  // Draws are doubles rounded once to Real when added: when Real is float
  // (the Cortex-M4F) we never run Box–Muller in float32 (issue 34; exact
  // noise on the integer grid is separate work).
  Status AddNoise(Real stddev, Span<Real> v);

  // Wipes the buffered bytes and the kept second normal: the next draw
  // reads only fresh bytes of the source (LocalTrainer::Init, after the
  // DRBG is seeded again).
  void Discard();

 private:
  Result<uint64_t> NextWord();

  RandomByteSource& drbg_;
  uint8_t buffer_[kBufferBytes];
  size_t buffer_used_ = kBufferBytes;
  double spare_ = 0;
  bool has_spare_ = false;
};

}  // namespace edgeadmm
