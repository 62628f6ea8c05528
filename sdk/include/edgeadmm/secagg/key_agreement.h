// Key agreement for secure aggregation: X25519 (RFC 7748 §5, the SDK's own
// constant-time Montgomery ladder, x25519.cc) and HKDF-SHA256 (RFC 5869,
// as two HMAC-SHA256 of Mbed TLS's MD layer) into a 32-byte pairwise key: the
// Diffie-Hellman key agreement of SecAgg+ (Bell et al., CCS 2020, §3; Bonawitz
// et al., CCS 2017, §3) by which devices i and j agree the pairwise mask seed
// s_ij (mask_prg.h) and the key that encrypts the Shamir shares they exchange.
//
// Guarantees: X25519KeyPair draws 32 bytes from the caller's random source
// (the SDK's Drbg) and clamps them (RFC 7748 §5); DerivePairwiseKey gives
// both sides the same key: HKDF-SHA256 with no salt, IKM = the X25519 shared
// secret, info = "EdgeADMM SecAgg+ v1" || purpose byte || the two public keys
// in increasing byte order (symmetric in the two parties, and bound to both
// keys and to the purpose, so the mask seed and the encryption key of one
// pair are independent). A peer key that gives an all-zero shared secret (a
// low-order point, RFC 7748 §6.1) is refused. X25519 agrees with RFC 7748's
// vectors and with Mbed TLS's ECP module on random inputs, the pairwise key
// with HKDF computed independently (the tests).
//
// Availability: every build (the SDK's Mbed TLS configurations all have
// MBEDTLS_MD_C and MBEDTLS_SHA256_C; no MBEDTLS_HKDF_C is needed).
// Memory: X25519 uses no heap: its ladder (15 field elements of 64 B) and
// a product's 31 64-bit column sums are on the stack, about 1.3 KB at the
// peak. DerivePairwiseKey's HKDF allocates Mbed TLS's HMAC context through
// mbedtls_calloc while it runs and frees it before it returns: the libc
// heap on Linux; on the MCU the static pool of platform/dtls
// (dtls_memory_pool.h), which must be started first (docs/sdk.md).
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/random_byte_source.h"
#include "edgeadmm/span.h"
#include "edgeadmm/status.h"

namespace edgeadmm {

constexpr size_t kX25519KeyBytes = 32;
constexpr size_t kPairwiseKeyBytes = 32;

enum class PairwiseKeyPurpose : uint8_t {
  kMaskSeed = 1,         // s_ij, expanded by mask_prg.h
  kShareEncryption = 2,  // the AEAD key of the shares i and j exchange
};

// out = X25519(scalar, u) (RFC 7748 §5: the scalar is clamped, the top bit
// of u masked, a u >= p used modulo p), all little-endian 32-byte strings.
// `random` blinds the ladder's projective coordinates (64 bytes per call; it
// does not change the result). Returns INVALID_ARGUMENT for wrong sizes or
// a low-order u (an all-zero result), INTERNAL when the random source
// fails; `out` is zeroized on every error but the size check.
Status X25519(ConstByteSpan scalar, ConstByteSpan u, RandomByteSource& random,
              ByteSpan out);

// A fresh key pair: private_key = 32 random bytes, clamped;
// public_key = X25519(private_key, 9). Errors as X25519.
Status X25519KeyPair(RandomByteSource& random, ByteSpan private_key,
                     ByteSpan public_key);

// The 32-byte key of the pair (own, peer) for `purpose` (see above). Both
// devices get the same key. Errors as X25519 (a wrong key size, a low-order
// peer key), INTERNAL if Mbed TLS's HMAC fails; `key` is zeroized on
// error.
Status DerivePairwiseKey(ConstByteSpan own_private, ConstByteSpan own_public,
                         ConstByteSpan peer_public, PairwiseKeyPurpose purpose,
                         RandomByteSource& random, ByteSpan key);

}  // namespace edgeadmm
