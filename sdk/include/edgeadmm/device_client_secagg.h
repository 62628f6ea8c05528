// The memory a DeviceClient configured for secure-aggregation rounds needs
// on top of DeviceClient::MemoryBytes, as a compile-time formula
// (DeviceClient::SecAggMemoryBytes returns it; StaticDeviceClient sizes its
// arena with it): the round's object, the session's buffers, one region
// for the largest request frame, the persisted blob and the decoded answer,
// the largest answer frame, the encoder's scratch, the words and the input
// record, for k neighbours, n devices and d' = DdgPaddedDimension(dim) words.
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
// The phase client's decoded answers (k keys, k sealed messages, n
// survivors): one answer is decoded at a time.
constexpr size_t SecAggDecodedAnswerBytes(size_t k, size_t n) {
  return MaxBytes(
      MaxBytes(k * sizeof(SecAggPeerKeys), k * sizeof(SecAggSealed)),
      n * sizeof(uint32_t));
}
// One region for the request frame, the persisted blob and the decoded
// answer: their uses never overlap in time (phase_client.h).
constexpr size_t SecAggWorkRegionBytes(size_t k, size_t m, size_t n) {
  return MaxBytes(
      MaxBytes(SecAggRequestBytes(k, m), SecAggSessionBlobBytes(k, m)),
      SecAggDecodedAnswerBytes(k, n));
}
constexpr size_t SecAggResponseBytes(size_t k, size_t n) {
  return MaxBytes(MaxBytes(SecAggSealedBytes(k), SecAggKeysAnswerBytes(k)),
                  MaxBytes(SecAggWordsBytes(n), SecAggRoundBytes()));
}

}  // namespace internal

// The extra client memory of secure rounds (k neighbours, n devices) at
// dimension `dim`; the carving of DeviceClient::Init follows it term by term.
constexpr size_t SecureRoundMemoryBytes(size_t dim, size_t k, size_t n) {
  const size_t m = DdgPaddedDimension(dim);
  return Workspace::Bytes<std::byte>(internal::kClientSecAggObjectBytes) +
         Workspace::Bytes<std::byte>(k * sizeof(SecAggPeerKeys)) +
         Workspace::Bytes<std::byte>(k * sizeof(SecAggSealed)) +
         Workspace::Bytes<std::byte>(k * sizeof(SecAggPeerKey)) +
         Workspace::Bytes<std::byte>(internal::SecAggWorkRegionBytes(k, m, n)) +
         Workspace::Bytes<std::byte>(internal::SecAggResponseBytes(k, n)) +
         Workspace::Bytes<Real>(m) + Workspace::Bytes<int64_t>(m) +
         Workspace::Bytes<uint32_t>(DdgSignWords(m)) +
         Workspace::Bytes<uint32_t>(m) +
         Workspace::Bytes<std::byte>(SecAggInputRecordBytes(m));
}

}  // namespace edgeadmm
