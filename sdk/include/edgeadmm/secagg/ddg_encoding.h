// The encoding of the distributed discrete Gaussian mechanism (Kairouz,
// Liu and Steinke, "The distributed discrete Gaussian mechanism for
// federated learning with secure aggregation", ICML 2021, "KLS", Alg. 1-2):
// how a device maps its clipped real vector into Z_{2^b} for secure
// aggregation, and how the gateway maps the unmasked sum back.
//
// Device (per round, x already clipped to L2 norm c, dimension d):
//   1. pad x with zeros to d' = the next power of two;
//   2. rotate: x <- H D x / sqrt(d') (DdgRotate), H the Walsh-Hadamard
//      matrix, D = diag(+-1) from the round's public seed (mask_prg.h,
//      purpose kRotation), so every device uses the same rotation and the
//      coordinates of the rotated vector are flat (KLS §4.1);
//   3. scale by 1/gamma (gamma the grid step) and round each coordinate to
//      floor or floor + 1, up with probability the fractional part,
//      retrying the whole vector until ||z||_2 <= DdgRoundedNormBound
//      (conditional randomized rounding, KLS §4.2; the check is exact, in
//      integers, so the bound holds for every vector sent);
//   4. add N_Z(0, sigma^2/gamma^2) to each coordinate (the SDK's exact
//      sampler, discrete_gaussian_sampler.h; a caller above both units
//      does it: this unit uses only core and Mbed TLS);
//   5. reduce mod 2^b (WrapToModulus) and mask (masked_input.h).
// Gateway: the unmasked sum mod 2^b, read as centred integers in
// [-2^(b-1), 2^(b-1)) (CentreFromModulus), times gamma, rotated back
// (DdgUnrotate: D H v / sqrt(d')), truncated to d. Correct when the true
// sum of the integers stays inside the centred range (b is chosen so:
// KLS §4.3, with the modular clipping probability).
//
// The norm bound (KLS, §4.2): for ||x/gamma||_2 <= c, one rounding attempt
// gives ||z||_2^2 <= c^2 + d'/4 + sqrt(2 ln(1/beta)) (c + sqrt(d')/2)
// with probability >= 1 - beta; always ||z||_2 <= c + sqrt(d'). The bound
// used is the smaller of the two; the expected number of attempts is at
// most 1/(1 - beta). The replace-one sensitivity of the rounded vector
// (before noise) is then at most twice it.
//
// No heap: the caller passes the buffers.
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/random_byte_source.h"
#include "edgeadmm/real.h"
#include "edgeadmm/span.h"
#include "edgeadmm/status.h"

namespace edgeadmm {

// The next power of two >= d (1 for d = 0); 0 above 2^31.
constexpr size_t DdgPaddedDimension(size_t d) {
  size_t p = 1;
  while (p < d) {
    if (p > (size_t{1} << 30)) return 0;
    p *= 2;
  }
  return p;
}

// The bound on ||z||_2 above, for scaled clip c = clip/gamma > 0, padded
// dimension d' and 0 < beta < 1; 0 for bad arguments.
double DdgRoundedNormBound(double scaled_clip, size_t padded, double beta);

// In-place rotation of v (size a power of two, >= 1) with the public
// `seed` (32 bytes) and `round_id`: v <- H D v / sqrt(size) (DdgRotate) or
// v <- D H v / sqrt(size) (DdgUnrotate, its inverse). `sign_words` is
// scratch of at least ceil(size/32) words. INVALID_ARGUMENT for a size not
// a power of two, a short scratch or a wrong seed size.
Status DdgRotate(ConstByteSpan seed, uint64_t round_id, Span<Real> v,
                 Span<uint32_t> sign_words);
Status DdgUnrotate(ConstByteSpan seed, uint64_t round_id, Span<Real> v,
                   Span<uint32_t> sign_words);

// Conditional randomized rounding of scaled (= rotated x / gamma) into z:
// retries until ||z||_2 <= norm_bound (checked exactly in integers), at
// most max_attempts times. INVALID_ARGUMENT for sizes that differ, a
// non-finite value, |value| >= 2^30 or norm_bound outside (0, 2^31);
// ABORTED after max_attempts failures (z zeroized); the random source's
// error.
Status ConditionalRandomizedRound(Span<const Real> scaled, double norm_bound,
                                  RandomByteSource& random, int max_attempts,
                                  Span<int64_t> z);

// out[j] = z[j] mod 2^bits (bits 1..32). INVALID_ARGUMENT for sizes or bits.
Status WrapToModulus(Span<const int64_t> z, uint32_t bits, Span<uint32_t> out);

// out[j] = the representative of sum[j] mod 2^bits in
// [-2^(bits-1), 2^(bits-1)). INVALID_ARGUMENT for sizes or bits.
Status CentreFromModulus(Span<const uint32_t> sum, uint32_t bits,
                         Span<int64_t> out);

}  // namespace edgeadmm
