// The masked input of SecAgg+ (Bell et al., CCS 2020, §3; Bonawitz et al.,
// CCS 2017, §4 "MaskedInputCollection"): device i sends
//   y_i = x_i + PRG(b_i) + sum_{j in N(i), j > i} PRG(s_ij)
//                        - sum_{j in N(i), j < i} PRG(s_ij)   (mod 2^bits)
// where b_i is its self-mask seed, N(i) its neighbours that completed the
// share phase (neighbour_graph.h), and s_ij the pairwise mask seed
// DerivePairwiseKey(i's mask private key, i's mask public key, j's mask
// public key, kMaskSeed) (key_agreement.h), agreed by i and j alone. The
// masks come from mask_prg.h (AES-256-CTR, labelled with the round id and
// the purpose). In the sum over the survivors the pairwise masks between
// survivors cancel; the gateway removes the self masks of the survivors
// and the pairwise masks of the dropped devices from reconstructed secrets
// (aggregator/secure_aggregation/include/edgeadmm/secure_aggregation/
// unmasking.h).
//
// The self-seed commitment: SHA-256("EdgeADMM SecAgg+ self seed v1" ||
// round id (8, big-endian) || device (4, big-endian) || b_i), announced with
// the device's public keys, lets the gateway reject a self seed
// reconstructed from a wrong share (Shamir shares carry no authentication);
// a 256-bit uniform seed keeps it hiding.
//
// No heap of its own: one pairwise seed (32 bytes) on the stack at a time,
// wiped after use; the seed's HKDF uses Mbed TLS's allocator as
// key_agreement.h says.
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/random_byte_source.h"
#include "edgeadmm/span.h"
#include "edgeadmm/status.h"

namespace edgeadmm {

constexpr size_t kSelfSeedCommitmentBytes = 32;

// A neighbour of the masking device: its index in the round and its mask
// public key (32 bytes).
struct SecAggPeerKey {
  uint32_t index = 0;
  ConstByteSpan mask_public;
};

struct MaskInputParams {
  uint64_t round_id = 0;
  uint32_t own_index = 0;
  uint32_t bits = 32;          // the modulus 2^bits, 1..32
  ConstByteSpan self_seed;     // b_i, 32 bytes
  ConstByteSpan mask_private;  // i's mask key pair (X25519)
  ConstByteSpan mask_public;
  Span<const SecAggPeerKey> neighbours;  // distinct, none == own_index
  RandomByteSource* random = nullptr;    // blinds the X25519 ladder
};

// +1 when device `own` adds PRG(s_{own,peer}) (peer > own), -1 when it
// subtracts it.
inline int PairwiseMaskSign(uint32_t own, uint32_t peer) {
  return peer > own ? 1 : -1;
}

// Masks `values` (x_i, each < 2^bits) in place into y_i. INVALID_ARGUMENT
// for bits outside 1..32, a value >= 2^bits, wrong key or seed sizes, no
// random source, a neighbour equal to own_index or listed twice; the
// key agreement's errors otherwise. On any error `values` is zeroized (a
// partly masked vector must not be sent).
Status MaskInput(const MaskInputParams& params, Span<uint32_t> values);

// The commitment to a self seed (above) into `out` (32 bytes).
// INVALID_ARGUMENT for wrong sizes, INTERNAL if Mbed TLS fails.
Status CommitSelfSeed(uint64_t round_id, uint32_t device,
                      ConstByteSpan self_seed, ByteSpan out);

}  // namespace edgeadmm
