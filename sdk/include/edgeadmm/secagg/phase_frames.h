// The bodies of the SecAgg+ phases on the wire (docs/protocol.md, "Secure
// aggregation phases"): what SecAggDeviceSession sends and what the
// gateway's SecAggRound answers, in a compact binary framing the device and
// the gateway share. Little-endian; every frame starts with a header:
//
//   version (1, = 2) | phase (1: 0..4) | round id (8)
//
// then, per phase (count fields bound the entries; nothing may follow):
//   0 answer   n | k | s | b | m | survivor floor | own index (4 each) |
//              graph seed (32)   (the GET of v1/secagg/round has no body)
//   1 request  encryption key (32) | mask key (32) | commitment (32)
//   1 answer   count (2) | count x [device (4) | enc key (32) | mask key (32)]
//   2 request  count (2) | count x [receiver (4) | sealed (82)]
//   2 answer   count (2) | count x [sender (4) | sealed (82)]
//   3 request  count (4) | count x word (4)
//   3 answer   count (2) | count x survivor (4) | survivors (4): the
//              survivors among the receiver and the senders of its
//              phase 2 answer, increasing, then how many devices in all
//              sent a masked input (SurvivorAnswer, share_reveal.h)
//   4 request  count (2) | count x [sender (4) | kind (1: 1 self seed,
//              0 mask key) | share index (1) | share (32)]
// Phase 4 has no answer body. Phase 0's decoder and encoder refuse
// parameters SecAggDeviceSession::Advertise would: n >= 2, k >= 1 and even
// unless k >= n - 1, min(k, n - 1) <= kSecAggMaxNeighbours, s in
// 2..min(k, n - 1), b in 1..32, m >= 1, survivor floor in 1..n, own index
// < n. Decoders refuse (INVALID_ARGUMENT) another
// version, another phase, a count above the caller's capacity, a length
// that is not exactly the header plus the count's entries, and a kind
// other than 0 or 1; they write nothing past the count they return. No
// heap; the MCU can link it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/secagg/device_session.h"
#include "edgeadmm/span.h"
#include "edgeadmm/status.h"

namespace edgeadmm {

// Version 2: phase 3's answer lists only the receiver's neighbourhood.
constexpr uint8_t kSecAggFrameVersion = 2;
// Content-Format of every frame (experimental-use range, RFC 7252 12.3).
constexpr uint16_t kSecAggFrameFormat = 65104;
// The gateway's resource of each phase (POST), index phase - 1.
constexpr const char* kSecAggPaths[4] = {
    "v1/secagg/advertise", "v1/secagg/share-keys", "v1/secagg/masked-input",
    "v1/secagg/unmasking"};
// Phase 0's resource (GET): the open round and the device's index.
constexpr const char kSecAggRoundPath[] = "v1/secagg/round";
// Phase 0's Uri-Query naming the round the device computed its input for:
// "round=<id>", the id in decimal (docs/protocol.md, "Secure aggregation
// phases").
constexpr const char kSecAggRoundQueryKey[] = "round=";
// The longest phase 0 path with the query, its NUL included (an id has at
// most 20 decimal digits).
constexpr size_t kMaxSecAggRoundPathBytes =
    sizeof("v1/secagg/round?") + sizeof(kSecAggRoundQueryKey) - 1 + 20;
// The SecAgg+ round id of job `job_id`'s round `round_id` (the RoundTask's
// fields): the job id in the high 32 bits, the round id's low 32 bits
// below, so that the rounds of two jobs running at once differ on the wire.
constexpr uint64_t SecAggRoundId(uint64_t job_id, uint64_t round_id) {
  return (job_id << 32) | (round_id & 0xffffffffu);
}
// Writes "v1/secagg/round?round=<id>" into `out`
// (kMaxSecAggRoundPathBytes).
void FormatSecAggRoundPath(uint64_t round_id,
                           char (&out)[kMaxSecAggRoundPathBytes]);
constexpr size_t kSecAggFrameHeaderBytes = 10;
constexpr size_t kSecAggKeysEntryBytes = 4 + 2 * kX25519KeyBytes;
constexpr size_t kSecAggSealedEntryBytes = 4 + kSealedSharesBytes;
constexpr size_t kSecAggRevealEntryBytes = 4 + 1 + 1 + kShamirSecretBytes;

struct SecAggFrameHeader {
  uint8_t phase = 0;  // 1..4
  uint64_t round_id = 0;
};

// Reads the header of a phase 1..4 frame (version, phase 1..4, length >=
// header); phase 0's frame has its own decoder below.
Status DecodeSecAggHeader(ConstByteSpan frame, SecAggFrameHeader& header);

// A poll of phase `phase` (1..3): the header alone. A device whose message
// of the open phase was accepted (2.04) sends it in place of the message:
// the gateway answers it as it would an identical resend (2.04 while open,
// then the phase's answer), so a waiting device's requests stay
// kSecAggFrameHeaderBytes long whatever its message's size.
StatusWithSize EncodeSecAggPoll(uint8_t phase, uint64_t round_id, ByteSpan out);

// Sizes of each frame, for buffers.
constexpr size_t SecAggRoundBytes() {
  return kSecAggFrameHeaderBytes + 7 * 4 + kGraphSeedBytes;
}
constexpr size_t SecAggAdvertiseBytes() {
  return kSecAggFrameHeaderBytes + 2 * kX25519KeyBytes +
         kSelfSeedCommitmentBytes;
}
constexpr size_t SecAggKeysAnswerBytes(size_t count) {
  return kSecAggFrameHeaderBytes + 2 + count * kSecAggKeysEntryBytes;
}
constexpr size_t SecAggSealedBytes(size_t count) {
  return kSecAggFrameHeaderBytes + 2 + count * kSecAggSealedEntryBytes;
}
constexpr size_t SecAggWordsBytes(size_t count) {
  return kSecAggFrameHeaderBytes + 4 + count * 4;
}
constexpr size_t SecAggSurvivorsBytes(size_t count) {
  return kSecAggFrameHeaderBytes + 2 + count * 4 + 4;
}
constexpr size_t SecAggRevealBytes(size_t count) {
  return kSecAggFrameHeaderBytes + 2 + count * kSecAggRevealEntryBytes;
}

// Phase 0's answer: the round's parameters, round id in the header.
StatusWithSize EncodeSecAggRound(const SecAggSessionParams& params,
                                 ByteSpan out);
Status DecodeSecAggRound(ConstByteSpan frame, SecAggSessionParams& params);

// Encoders: the frame's size, RESOURCE_EXHAUSTED when `out` is short,
// INVALID_ARGUMENT for more entries than a count holds.
StatusWithSize EncodeSecAggAdvertise(uint64_t round_id,
                                     const SecAggAdvertisement& advert,
                                     ByteSpan out);
StatusWithSize EncodeSecAggKeys(uint64_t round_id,
                                Span<const SecAggPeerKeys> keys, ByteSpan out);
// Phase 2, both directions (the same shape).
StatusWithSize EncodeSecAggSealed(uint64_t round_id,
                                  Span<const SecAggSealed> sealed,
                                  ByteSpan out);
// Phase 3's request (y).
StatusWithSize EncodeSecAggWords(uint64_t round_id, Span<const uint32_t> words,
                                 ByteSpan out);
// Phase 3's answer (its content is the device's to check:
// SelectRevealedShares).
StatusWithSize EncodeSecAggSurvivors(uint64_t round_id,
                                     const SurvivorAnswer& answer,
                                     ByteSpan out);
StatusWithSize EncodeSecAggReveal(uint64_t round_id,
                                  Span<const RevealedShare> shares,
                                  ByteSpan out);

// Decoders: the number of entries written to `out`.
Status DecodeSecAggAdvertise(ConstByteSpan frame, SecAggFrameHeader& header,
                             SecAggAdvertisement& advert);
StatusWithSize DecodeSecAggKeys(ConstByteSpan frame, SecAggFrameHeader& header,
                                Span<SecAggPeerKeys> out);
StatusWithSize DecodeSecAggSealed(ConstByteSpan frame,
                                  SecAggFrameHeader& header,
                                  Span<SecAggSealed> out);
StatusWithSize DecodeSecAggWords(ConstByteSpan frame, SecAggFrameHeader& header,
                                 Span<uint32_t> out);
// The listed survivors go to `listed` (their number returned),
// the count in all to `survivors` (checked by SelectRevealedShares).
StatusWithSize DecodeSecAggSurvivors(ConstByteSpan frame,
                                     SecAggFrameHeader& header,
                                     uint32_t& survivors,
                                     Span<uint32_t> listed);
StatusWithSize DecodeSecAggReveal(ConstByteSpan frame,
                                  SecAggFrameHeader& header,
                                  Span<RevealedShare> out);

}  // namespace edgeadmm
