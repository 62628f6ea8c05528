// GaussianSampler: Gaussian noise in double precision from DRBG bytes.
//
// Uniforms: each U(0,1) draw takes 64 DRBG bits and keeps the top 53, k in
// [0, 2^53); k = 0 is redrawn (probability 2^-53) and the result k·2^-53 is
// exact and lies strictly inside (0, 1). Bytes are fetched from the Drbg in
// blocks of kBufferBytes (one DRBG request per block); consumed bytes are
// wiped from the buffer.
//
// Normals: the Box–Muller transform (Box and Muller 1958): for independent
// U1, U2 ~ U(0,1), R = sqrt(−2 ln U1) and θ = 2π U2, the pair (R cos θ, R sin
// θ) is two independent N(0, 1) draws. The second value of each pair is kept
// and returned by the next call. Since U1 ≥ 2^-53, |Z| ≤ sqrt(2·53·ln 2)
// ≈ 8.57: tails beyond that (probability ≈ 1e-17) are never produced.
//
// Floating-point caveat (Mironov, "On significance of the least significant
// bits for differential privacy", CCS 2012): the proofs assume real-valued
// noise, but these samples are doubles produced by a finite-precision
// transform, so their set of attainable values and low-order bits depend on
// the noise scale and on the value noised. Mironov shows that for the
// Laplace mechanism an attacker who sees the exact double can sometimes
// tell neighbouring inputs apart; the same porosity argument applies to
// Gaussian noise computed this way. The SDK does not implement a snapping or
// discrete-Gaussian mitigation; the noised vectors are rounded to float32 on
// the wire, which blurs but does not provably remove the effect. The stated
// (ε, δ) guarantees therefore hold for the idealised real-valued mechanism.
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

  // `drbg` must be initialised before the first draw and outlive the sampler.
  // In the SDK the source is always a Drbg; tests may pass a scripted one.
  explicit GaussianSampler(RandomByteSource& drbg);
  ~GaussianSampler();
  GaussianSampler(const GaussianSampler&) = delete;
  GaussianSampler& operator=(const GaussianSampler&) = delete;

  // A uniform draw in the open interval (0, 1) from 53 random bits.
  // Errors are those of Drbg::Generate (FAILED_PRECONDITION, UNAVAILABLE).
  Result<Real> Uniform01();

  // A standard normal N(0, 1) draw (Box–Muller). Errors as Uniform01.
  Result<Real> Standard();

  // v += N(0, stddev² I). INVALID_ARGUMENT if stddev is negative or not
  // finite; DRBG errors as Uniform01 (then v may be partly noised and must
  // be discarded). stddev = 0 leaves v unchanged and draws nothing.
  Status AddNoise(Real stddev, Span<Real> v);

 private:
  Result<uint64_t> NextWord();

  RandomByteSource& drbg_;
  uint8_t buffer_[kBufferBytes];
  size_t buffer_used_ = kBufferBytes;
  Real spare_ = 0;
  bool has_spare_ = false;
};

}  // namespace edgeadmm
