// Encrypted transport of Shamir shares between two devices through the
// gateway (SecAgg+, Bell et al., CCS 2020, §3; Bonawitz et al., CCS 2017,
// §4 "ShareKeys"): device i sends its neighbour j one share of its
// self-mask seed and one of its mask private key, sealed with an AEAD the
// gateway cannot open or alter unnoticed.
//
// AEAD: AES-256-CCM with a 16-byte tag (NIST SP 800-38C, RFC 3610) from
// Mbed TLS (mbedtls/ccm.h; MBEDTLS_CCM_C is already in every SDK build for
// the DTLS PSK-CCM suites, so the MCU links no new cipher). Key: the
// pairwise key of purpose kShareEncryption (key_agreement.h), derived from
// the devices' encryption key pair, not the mask key pair. Nonce (13
// bytes): round id (8, big-endian) || sender (4, big-endian) || 0x01; one
// sealed message per (round, sender) and key, so a nonce never repeats
// under one key (the key is symmetric, the sender in the nonce separates
// the two directions). Associated data: round id (8) || sender (4) ||
// receiver (4), big-endian: a message replayed to another receiver, from
// another sender or in another round fails to open.
//
// Plaintext (66 bytes): the self-seed share (index, 32 bytes) then the
// mask-key share (index, 32 bytes); both carry the same index. Sealed
// message: kSealedSharesBytes = 66 + 16.
//
// Memory: Mbed TLS's cipher layer allocates the AES context (about 300 B)
// through mbedtls_calloc during a call and frees it before returning: the
// libc heap on Linux, the static pool of platform/dtls on the MCU (as the
// key agreement). armhf's Mbed TLS has CCM too.
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/secagg/shamir.h"
#include "edgeadmm/span.h"
#include "edgeadmm/status.h"

namespace edgeadmm {

constexpr size_t kShareTagBytes = 16;
constexpr size_t kSharePlaintextBytes = 2 * (1 + kShamirSecretBytes);
constexpr size_t kSealedSharesBytes = kSharePlaintextBytes + kShareTagBytes;

// What device `sender` sends device `receiver` in `round_id`.
struct ShareAddress {
  uint64_t round_id = 0;
  uint32_t sender = 0;
  uint32_t receiver = 0;
};

struct SharePair {
  ShamirShare self_seed;
  ShamirShare mask_key;
};

// Seals `shares` into `out` (exactly kSealedSharesBytes). INVALID_ARGUMENT
// for a key of another size than 32 bytes, a wrong output size, sender ==
// receiver, or two shares with different or zero indices; RESOURCE_EXHAUSTED
// when Mbed TLS's allocator is out of memory; INTERNAL for another Mbed TLS
// failure. On error `out` is zeroized.
Status SealShares(ConstByteSpan key, const ShareAddress& address,
                  const SharePair& shares, ByteSpan out);

// Opens a message sealed for `address`. DATA_LOSS when the tag does not
// verify (a tampered message, the wrong key, or a message for another
// round, sender or receiver) or the plaintext is malformed (indices differ
// or are zero); errors otherwise as SealShares. On error `shares` is
// zeroized.
Status OpenShares(ConstByteSpan key, const ShareAddress& address,
                  ConstByteSpan sealed, SharePair& shares);

}  // namespace edgeadmm
