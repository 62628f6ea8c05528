// The memory a DeviceClient configured for secure-aggregation rounds needs
// on top of DeviceClient::MemoryBytes, as a compile-time formula
// (DeviceClient::SecAggMemoryBytes returns it; StaticDeviceClient sizes its
// arena with it): the round's object, the session's buffers, one region
// for the largest request frame and the decoded answer, the largest answer
// frame right after it (the persisted blob spans both), the encoder's
// scratch, the words and the input record, for k neighbours and
// d' = DdgPaddedDimension(dim) words. Nothing depends on the round's n.
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/ddg_encoder.h"
#include "edgeadmm/real.h"
#include "edgeadmm/secagg/ddg_encoding.h"
#include "edgeadmm/secagg/device_session.h"
#include "edgeadmm/secagg/masked_input.h"
#include "edgeadmm/secagg/phase_frames.h"
#include "edgeadmm/secagg_input_record.h"
#include "edgeadmm/workspace.h"

namespace edgeadmm {
namespace internal {

// Bytes reserved for a secure round's object (device_client_secagg.cc
// asserts its size fits).
inline constexpr size_t kClientSecAggObjectBytes = 1536;

constexpr size_t MaxBytes(size_t a, size_t b) { return a > b ? a : b; }

// The largest frame each way (SecAggPhaseClient's check of a round).
constexpr size_t SecAggRequestBytes(size_t k, size_t m) {
  return MaxBytes(MaxBytes(SecAggSealedBytes(k), SecAggWordsBytes(m)),
                  MaxBytes(SecAggRevealBytes(k), SecAggAdvertiseBytes()));
}
// The phase client's decoded answers (k keys, k sealed messages, k + 1
// listed survivors): one answer is decoded at a time.
constexpr size_t SecAggDecodedAnswerBytes(size_t k) {
  return MaxBytes(
      MaxBytes(k * sizeof(SecAggPeerKeys), k * sizeof(SecAggSealed)),
      (k + 1) * sizeof(uint32_t));
}
constexpr size_t SecAggResponseBytes(size_t k) {
  return MaxBytes(MaxBytes(SecAggSealedBytes(k), SecAggKeysAnswerBytes(k)),
                  MaxBytes(SecAggSurvivorsBytes(k + 1), SecAggRoundBytes()));
}
// One region for the request frame and the decoded answer, followed by the
// answer frame's region; the persisted blob spans both regions. Their uses
// never overlap in time (phase_client.h): the blob is written and read only
// between exchanges, after the answer was decoded and used.
constexpr size_t SecAggWorkRegionBytes(size_t k, size_t m) {
  const size_t blob = SecAggSessionBlobBytes(k, m);
  const size_t response = SecAggResponseBytes(k);
  return MaxBytes(
      MaxBytes(SecAggRequestBytes(k, m), SecAggDecodedAnswerBytes(k)),
      blob > response ? blob - response : 0);
}

// Where each part of a secure round's memory starts in its one slice of
// the workspace, each on a Workspace::kAlignment boundary (the round's
// object at 0), and the slice's size.
struct SecureRoundLayout {
  size_t neighbours = 0;  // SecAggSessionBuffers: k SecAggPeerKeys
  size_t sealed = 0;      // k SecAggSealed
  size_t scratch = 0;     // k SecAggPeerKey
  size_t work = 0;        // SecAggWorkRegionBytes(k, m)
  size_t response = 0;    // SecAggResponseBytes(k), right after work
  size_t blob_end = 0;    // the blob: [work, blob_end)
  size_t real = 0;        // the encoder's scratch: m Real
  size_t integers = 0;    // m int64_t
  size_t signs = 0;       // DdgSignWords(m) words
  size_t words = 0;       // m words: the input, masked in place
  size_t record = 0;      // SecAggInputRecordBytes(m)
  size_t total = 0;
};

constexpr SecureRoundLayout SecureRoundLayoutOf(size_t dim, size_t k) {
  const size_t m = DdgPaddedDimension(dim);
  SecureRoundLayout l;
  size_t at = Workspace::RoundUp(kClientSecAggObjectBytes);
  const auto place = [&at](size_t& part, size_t bytes) {
    part = at;
    at += Workspace::RoundUp(bytes);
  };
  place(l.neighbours, k * sizeof(SecAggPeerKeys));
  place(l.sealed, k * sizeof(SecAggSealed));
  place(l.scratch, k * sizeof(SecAggPeerKey));
  place(l.work, SecAggWorkRegionBytes(k, m));
  place(l.response, SecAggResponseBytes(k));
  l.blob_end = l.response + SecAggResponseBytes(k);
  place(l.real, m * sizeof(Real));
  place(l.integers, m * sizeof(int64_t));
  place(l.signs, DdgSignWords(m) * sizeof(uint32_t));
  place(l.words, m * sizeof(uint32_t));
  place(l.record, SecAggInputRecordBytes(m));
  l.total = at;
  return l;
}

}  // namespace internal

// The extra client memory of secure rounds (at most k neighbours) at
// dimension `dim`: the slice DeviceClient::Init carves by
// internal::SecureRoundLayoutOf.
constexpr size_t SecureRoundMemoryBytes(size_t dim, size_t k) {
  return Workspace::Bytes<std::byte>(
      internal::SecureRoundLayoutOf(dim, k).total);
}

}  // namespace edgeadmm
