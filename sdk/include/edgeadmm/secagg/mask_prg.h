// Mask expansion for secure aggregation: a 32-byte seed and a label expand
// into a vector of uint32 masks in Z_{2^32} (reduced mod 2^b by the caller
// later), the PRG of SecAgg+ (Bell et al., CCS 2020, §3; Bonawitz et al.,
// CCS 2017, §4) for the pairwise masks PRG(s_ij) and the self mask PRG(b_i).
//
// PRG: AES-256 in counter mode (NIST SP 800-38A §6.5) keyed with the seed,
// from Mbed TLS's AES (mbedtls/aes.h, the block cipher the SDK's CTR_DRBG
// already links on every target; the counter blocks are formed here, so no
// MBEDTLS_CIPHER_MODE_CTR is needed on the MCU). The 16-byte counter block
// is the label then a block counter:
//   bytes 0..7   round id, big-endian
//   byte  8      purpose: 1 = pairwise, 2 = self, 3 = rotation signs
//   bytes 9..11  zero
//   bytes 12..15 block number j = 0, 1, 2, ... big-endian
// and mask word w is the little-endian uint32 at bytes 4(w mod 4)..+3 of the
// keystream block j = w / 4. So masks of different rounds or purposes come
// from disjoint counter blocks of the same key (domain separation), and the
// keystream equals `openssl enc -aes-256-ctr -K seed -iv label||00000000`
// (the known-answer test checks that).
//
// Guarantees: the masks are a deterministic function of (seed, label,
// position): two devices with the same seed get the same vector, so
// +PRG(s_ij) on one and -PRG(s_ij) on the other cancel mod 2^32. A vector
// may hold up to 2^34 words (2^32 blocks). No heap: the AES context and one
// keystream block live on the stack (about 300 bytes) and are zeroized.
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/span.h"
#include "edgeadmm/status.h"

namespace edgeadmm {

constexpr size_t kMaskSeedBytes = 32;

enum class MaskPurpose : uint8_t {
  kPairwise = 1,  // PRG(s_ij), s_ij agreed by devices i and j
  kSelf = 2,      // PRG(b_i), b_i the device's own self-mask seed
  kRotation = 3,  // the public random signs of ddg_encoding.h's rotation
};

struct MaskLabel {
  uint64_t round_id = 0;
  MaskPurpose purpose = MaskPurpose::kPairwise;
};

enum class MaskSign : uint8_t { kAdd, kSubtract };

// values[w] += mask[w] (kAdd) or values[w] -= mask[w] (kSubtract), mod 2^32,
// for every w, mask = the PRG of (seed, label). Streams the keystream: no
// buffer of the vector's size. Returns INVALID_ARGUMENT for a seed of
// another size than kMaskSeedBytes, an unknown purpose, or more than 2^34
// values (then `values` is unchanged); INTERNAL if Mbed TLS fails.
Status ApplyMask(ConstByteSpan seed, MaskLabel label, MaskSign sign,
                 Span<uint32_t> values);

// out[w] = mask[w]: ApplyMask on zeros. Same errors (then `out` is zeroed).
Status ExpandMask(ConstByteSpan seed, MaskLabel label, Span<uint32_t> out);

}  // namespace edgeadmm
