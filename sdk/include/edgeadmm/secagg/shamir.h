// Shamir secret sharing of a 32-byte secret, t of n (Shamir, "How to share a
// secret", CACM 1979), the sharing SecAgg+ uses for each device's self-mask
// seed and mask key (Bell et al., "Secure single-server aggregation with
// (poly)logarithmic overhead", CCS 2020, §3; Bonawitz et al., CCS 2017).
//
// Field: GF(2^8), byte-wise. Each of the 32 secret bytes is shared on its
// own with a random polynomial of degree t-1 over GF(2^8) (the AES field);
// all bytes share the evaluation points x = share index in 1..255. Why not a
// prime field: the secret is a 256-bit key, and a prime field holding it
// needs a p > 2^256 (shares longer than the secret, or a reduction of the
// secret) and multi-precision arithmetic on the device; GF(2^8) keeps every
// share exactly as long as the secret (32 bytes + a 1-byte index), needs no
// bignum, and 255 non-zero points cover n ≤ 255, more than a SecAgg+
// neighbourhood (k = O(log n) neighbours). The field multiply is
// constant-time and table-free (sdk/src/secagg/gf256.h).
//
// Guarantees. Any t distinct shares of one Split determine the secret
// (Lagrange interpolation at 0); any t-1 or fewer are jointly uniform,
// whatever the secret, when the randomness is uniform (perfect secrecy).
// Shares are not authenticated: a wrong share gives a wrong secret, not an
// error (SecAgg+ in the semi-honest model; an AEAD carries them).
//
// No heap: shares go into the caller's fixed array. Split zeroizes the
// polynomial coefficients it drew; the caller owns the secret and the shares.
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/random_byte_source.h"
#include "edgeadmm/span.h"
#include "edgeadmm/status.h"

namespace edgeadmm {

constexpr size_t kShamirSecretBytes = 32;
// Share indices are 1..kShamirMaxShares (0 is the secret's point).
constexpr size_t kShamirMaxShares = 255;

struct ShamirShare {
  uint8_t index = 0;                         // x, in 1..255
  std::byte value[kShamirSecretBytes] = {};  // the polynomials at x
};

// Splits `secret` (exactly kShamirSecretBytes) into `share_count` shares
// with indices 1..share_count written to shares[0..share_count), any
// `threshold` of which reconstruct it. Draws (threshold-1) * 32 bytes from
// `random` (the SDK's Drbg). Returns INVALID_ARGUMENT for a secret of
// another size, threshold < 2 (one share would be the secret itself),
// threshold > share_count, share_count > 255 or `shares` shorter than
// share_count; the random source's status if it fails. On error the shares
// are zeroized.
Status ShamirSplit(ConstByteSpan secret, size_t threshold, size_t share_count,
                   RandomByteSource& random, Span<ShamirShare> shares);

// Reconstructs the secret into `secret` (exactly kShamirSecretBytes) from
// the first `threshold` of `shares`. Every share's index must be in 1..255
// and all indices distinct (checked over all of `shares`). Returns
// INVALID_ARGUMENT for threshold < 2, a zero or duplicate index, or a wrong
// output size; FAILED_PRECONDITION when fewer than `threshold` shares are
// given. On error `secret` is zeroized.
Status ShamirReconstruct(Span<const ShamirShare> shares, size_t threshold,
                         ByteSpan secret);

}  // namespace edgeadmm
