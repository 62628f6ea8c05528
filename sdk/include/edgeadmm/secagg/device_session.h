// The device's side of one SecAgg+ round (Bell et al., CCS 2020, §3;
// Bonawitz et al., CCS 2017, §4) as a state machine over caller memory, the
// phases of docs/protocol.md, "Secure aggregation phases":
//
//   Advertise(phase 0's parameters)   -> phase 1: two X25519 public keys
//                                        and the self-seed commitment
//   ShareKeys(neighbours' keys)       -> phase 2: one sealed message per
//                                        neighbour that advertised
//   MaskInput(delivered shares, x)    -> phase 3: y = x + masks mod 2^b
//   Reveal(phase 3's answer)          -> phase 4: SelectRevealedShares'
//                                        answer; a second, different one
//                                        is refused (ALREADY_EXISTS)
//   Finish() / Abort()                -> everything zeroized
//
// Persistence: after each step, and before its message leaves, the caller
// writes Serialize's blob to its Storage; a session Restore()d from that
// blob after a reboot is in the same phase and its message accessor gives
// the byte-identical message (the Shamir splits and the key pairs draw
// fresh randomness, so the blob holds their results, not a seed). What a
// blob holds (at rest in flash, like the DTLS PSK): phases 1-2 the two
// private keys and the self seed (phase 2 also the neighbours' public
// keys and the sealed messages); phase 3 y and the shares received from
// neighbours (the own secrets are dropped once y is made); phase 4 the
// shares it revealed and the SHA-256 of phase 3's answer they answer.
//
// Blob format 2 (format 1 digested the whole survivor list), little-endian:
// "EASS", version (2), phase (1), 0 (1), round id (8), n, k, s, b, m, survivor
// floor, own index (4 each), graph seed (32); then the phase's part (above);
// then CRC-32 (crc32.h) of every byte before it. Restore refuses anything else
// with DATA_LOSS and leaves the session unchanged.
//
// No heap; no exceptions. Memory: sizeof(SecAggDeviceSession) plus the
// caller's SecAggSessionBuffers (SecAggSessionBufferBytes(k, m), whose
// regions the phases reuse as below); Mbed TLS
// allocates during HKDF and CCM (key_agreement.h, share_transport.h).
// Not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/random_byte_source.h"
#include "edgeadmm/secagg/key_agreement.h"
#include "edgeadmm/secagg/mask_prg.h"
#include "edgeadmm/secagg/masked_input.h"
#include "edgeadmm/secagg/neighbour_graph.h"
#include "edgeadmm/secagg/share_reveal.h"
#include "edgeadmm/secagg/share_transport.h"
#include "edgeadmm/span.h"
#include "edgeadmm/status.h"

namespace edgeadmm {

// Phase 0: what the gateway's task says about the round.
struct SecAggSessionParams {
  uint64_t round_id = 0;
  uint32_t devices = 0;        // n
  uint32_t degree = 0;         // k
  uint32_t threshold = 0;      // s, 2..min(k, n - 1)
  uint32_t bits = 32;          // b, 1..32
  uint32_t mask_length = 0;    // m, >= 1
  uint32_t min_survivors = 1;  // 1..n
  uint32_t own_index = 0;      // this device, < n
  std::byte graph_seed[kGraphSeedBytes] = {};
};

// Phase 1's message.
struct SecAggAdvertisement {
  std::byte encryption_public[kX25519KeyBytes] = {};
  std::byte mask_public[kX25519KeyBytes] = {};
  std::byte self_seed_commitment[kSelfSeedCommitmentBytes] = {};
};

// One neighbour's keys in phase 1's answer.
struct SecAggPeerKeys {
  uint32_t device = 0;
  std::byte encryption_public[kX25519KeyBytes] = {};
  std::byte mask_public[kX25519KeyBytes] = {};
};

// One sealed message: to `peer` in phase 2's message, from `peer` in
// phase 2's answer.
struct SecAggSealed {
  uint32_t peer = 0;
  std::byte sealed[kSealedSharesBytes] = {};
};

// The caller's memory: three regions of at least k entries each, which
// the phases reuse (only what the next phases need is kept), and m words.
//   neighbours: ShareKeys' Shamir shares (2k x 33 B), then the
//               neighbours' keys until MaskInput; the revealed shares
//               from Reveal on
//   sealed:     phase 2's sealed messages until MaskInput; the shares
//               received from the neighbours from MaskInput to Reveal
//   scratch:    the graph neighbours' indices in ShareKeys, the mask
//               public keys' spans in MaskInput
//   masked:     y from MaskInput on. It may be the caller's input itself:
//               y is then made in place (no copy of the m words), and
//               a failed MaskInput, Finish and Abort zeroize it; a
//               Restore to phase 1 or 2 leaves it alone
struct SecAggSessionBuffers {
  Span<SecAggPeerKeys> neighbours;
  Span<SecAggSealed> sealed;
  Span<SecAggPeerKey> scratch;
  Span<uint32_t> masked;
};

// Bytes of SecAggSessionBuffers for k neighbours and m words.
constexpr size_t SecAggSessionBufferBytes(size_t k, size_t m) {
  return k * (sizeof(SecAggPeerKeys) + sizeof(SecAggSealed) +
              sizeof(SecAggPeerKey)) +
         m * sizeof(uint32_t);
}

// The blob's parts (format above): header, each phase's part, CRC-32.
namespace secagg_blob {
inline constexpr size_t kHeaderBytes =
    4 + 2 + 1 + 1 + 8 + 7 * 4 + kGraphSeedBytes;
inline constexpr size_t kKeysBytes = 6 * 32;  // phases 1-2: secrets, keys
inline constexpr size_t kPeerBytes = 4 + 2 * kX25519KeyBytes;
inline constexpr size_t kSealedBytes = 4 + kSealedSharesBytes;
inline constexpr size_t kReceivedBytes = 4 + 2 * (1 + kShamirSecretBytes);
inline constexpr size_t kRevealedBytes = 4 + 1 + 1 + kShamirSecretBytes;
inline constexpr size_t kCrcBytes = 4;
// The part of phase 1..4 (SecAggDevicePhase) for `peers` neighbours,
// `received` share pairs and m words; 0 for another phase.
constexpr size_t PhaseBytes(int phase, size_t peers, size_t received,
                            size_t m) {
  return phase == 1   ? kKeysBytes
         : phase == 2 ? kKeysBytes + 4 + peers * (kPeerBytes + kSealedBytes)
         : phase == 3 ? 4 + received * kReceivedBytes + 4 * m
         : phase == 4 ? 32 + 4 + received * kRevealedBytes
                      : 0;
}
}  // namespace secagg_blob

// The largest blob for k neighbours and m words (Serialize's size).
constexpr size_t SecAggSessionBlobBytes(size_t k, size_t m) {
  size_t most = 0;
  for (int p = 1; p <= 4; ++p) {
    const size_t b = secagg_blob::PhaseBytes(p, k, k, m);
    if (b > most) most = b;
  }
  return secagg_blob::kHeaderBytes + most + secagg_blob::kCrcBytes;
}

// Static arrays for at most K neighbours and M words (one per device).
template <size_t K, size_t M>
struct SecAggSessionArrays {
  SecAggPeerKeys neighbours[K];
  SecAggSealed sealed[K];
  SecAggPeerKey scratch[K];
  uint32_t masked[M];
  SecAggSessionBuffers buffers() {
    return {neighbours, sealed, scratch, masked};
  }
};

enum class SecAggDevicePhase : uint8_t {
  kIdle = 0,
  kAdvertised = 1,
  kSharesSent = 2,
  kMaskedSent = 3,
  kRevealed = 4,
  kDone = 5,
  kAborted = 6,
};

class SecAggDeviceSession {
 public:
  explicit SecAggDeviceSession(const SecAggSessionBuffers& buffers);
  ~SecAggDeviceSession();
  SecAggDeviceSession(const SecAggDeviceSession&) = delete;
  SecAggDeviceSession& operator=(const SecAggDeviceSession&) = delete;

  SecAggDevicePhase phase() const { return phase_; }
  const SecAggSessionParams& params() const { return params_; }

  // Whether `params` is in the ranges above (the one definition, which
  // phase 0's frames use too); Advertise also needs the buffers to fit.
  static bool ValidRoundParams(const SecAggSessionParams& params);

  // Phase 1 from kIdle. INVALID_ARGUMENT for parameters outside the ranges
  // above or buffers shorter than min(k, n - 1) (m for masked); the key
  // agreement's and the random source's errors (the session stays idle).
  Status Advertise(const SecAggSessionParams& params, RandomByteSource& random);
  const SecAggAdvertisement& advertisement() const { return advert_; }

  // Phase 2 from kAdvertised: `keys` are the graph neighbours that
  // advertised (each once). INVALID_ARGUMENT for a device that is not a
  // neighbour or listed twice; FAILED_PRECONDITION for fewer than s of
  // them (no one could reconstruct); crypto errors. On error the phase
  // does not change.
  Status ShareKeys(Span<const SecAggPeerKeys> keys, RandomByteSource& random);
  // Empty outside kSharesSent (MaskInput reuses their memory for the
  // received shares, which must not leave), and after a MaskInput that failed
  // once it had started opening the delivered messages (their region then holds
  // the received shares; the gateway already has them, and the blob written
  // after ShareKeys still holds them).
  Span<const SecAggSealed> sealed_messages() const {
    const bool valid =
        phase_ == SecAggDevicePhase::kSharesSent && !sealed_dropped_;
    return Span<const SecAggSealed>(buffers_.sealed.data(),
                                    valid ? peer_count_ : 0);
  }

  // Phase 3 from kSharesSent: `delivered` from neighbours in phase 2's
  // keys, each once; `input` m words < 2^b (it may be buffers.masked).
  // INVALID_ARGUMENT for those; DATA_LOSS when a message does not open; on
  // error the phase does not change (a retry may succeed), y is zeroized
  // and, once opening began, sealed_messages() is empty. On success the
  // own private keys and self seed are zeroized.
  Status MaskInput(Span<const SecAggSealed> delivered,
                   Span<const uint32_t> input, RandomByteSource& random);
  Span<const uint32_t> masked_input() const {
    return Span<const uint32_t>(buffers_.masked.data(), params_.mask_length);
  }

  // Phase 4 from kMaskedSent; again in kRevealed with the same answer is
  // OK (the same shares), with another ALREADY_EXISTS. SelectRevealedShares'
  // errors otherwise.
  Status Reveal(const SurvivorAnswer& answer);
  Span<const RevealedShare> revealed_shares() const;

  // The round ended (Finish) or was given up (Abort): every secret and
  // buffer is zeroized.
  void Finish();
  void Abort();

  // The blob of the current phase (kAdvertised..kRevealed) into `out`.
  // FAILED_PRECONDITION in another phase or after sealed_messages() were
  // dropped (the blob in storage stays the one to restore); RESOURCE_EXHAUSTED
  // when `out` is short (size needed returned).
  StatusWithSize Serialize(ByteSpan out) const;
  // DATA_LOSS for a blob that is not exactly one Serialize wrote (length,
  // CRC, magic, version, phase, fields) or does not fit the buffers; the
  // session is then unchanged.
  Status Restore(ConstByteSpan blob);

 private:
  friend class SecAggSessionBlob;
  static bool ValidParams(const SecAggSessionParams& params,
                          const SecAggSessionBuffers& buffers);
  // `words` false keeps buffers.masked (the caller's input, when in place).
  void Wipe(bool words = true);
  void WipeOwnSecrets();
  Status NeighbourPlace(uint32_t device, size_t& place) const;
  Status SealAll(Span<const SecAggPeerKeys> keys, RandomByteSource& random);
  const SecAggPeerKeys* FindPeer(uint32_t device) const;
  Status CheckDelivered(Span<const SecAggSealed> delivered) const;
  Status MaskWords(size_t delivered, Span<const uint32_t> input,
                   RandomByteSource& random);
  Status OpenAll(Span<const SecAggSealed> delivered, RandomByteSource& random);

  SecAggSessionBuffers buffers_;
  SecAggSessionParams params_;
  SecAggDevicePhase phase_ = SecAggDevicePhase::kIdle;
  uint32_t peer_count_ = 0;      // neighbours that advertised
  uint32_t received_count_ = 0;  // messages delivered in phase 2's answer
  bool sealed_dropped_ = false;  // a failed MaskInput reused their region
  std::byte enc_private_[kX25519KeyBytes] = {};
  std::byte mask_private_[kX25519KeyBytes] = {};
  std::byte self_seed_[kMaskSeedBytes] = {};
  std::byte survivors_digest_[32] = {};
  SecAggAdvertisement advert_;
};

}  // namespace edgeadmm
