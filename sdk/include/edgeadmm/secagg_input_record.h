// The device's input to a secure-aggregation round, encoded once: the
// words DdgEncodeUpdate made for (job, round) are written to Storage before
// they are masked, and a device that reboots mid-round reads them back
// instead of encoding again. Encoding again would draw fresh noise and the
// gateway could then unmask two noisy copies of one update (a second
// release of the device's data); the phases must also resume with the SAME
// input (SecAggPhaseClient::Resume).
//
// Record format 1, little-endian: "EASI", version (1), 0 (3), job id (8),
// round id (8), word count (4), 0 (4), the words (4 each), CRC-32 (crc32.h) of
// every byte before it. One record per storage key: a round's record
// replaces the previous round's.
//
// No heap: the caller passes the record buffer and the encoder's scratch
// (SecAggEncodeBytes: d' reals, d' int64, ceil(d'/32) sign words, d' words).
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/ddg_encoder.h"
#include "edgeadmm/random_byte_source.h"
#include "edgeadmm/real.h"
#include "edgeadmm/secure_aggregation_task.h"
#include "edgeadmm/span.h"
#include "edgeadmm/status.h"
#include "edgeadmm/storage.h"

namespace edgeadmm {

// Bytes of a record of `words` words.
constexpr size_t SecAggInputRecordBytes(size_t words) {
  return 32 + 4 * words + 4;
}

// Bytes of the encoder's scratch and the words for a padded dimension d'
// (DdgPaddedDimension(d)), without alignment padding.
constexpr size_t SecAggEncodeBytes(size_t padded) {
  return padded * sizeof(Real) + padded * sizeof(int64_t) +
         DdgSignWords(padded) * sizeof(uint32_t) + padded * sizeof(uint32_t);
}

// The round a record belongs to.
struct SecAggInputRound {
  uint64_t job_id = 0;
  uint64_t round_id = 0;
};

// Reads the record under `key` into `words` (its whole length). NOT_FOUND
// when there is none or it belongs to another round (that round is over);
// FAILED_PRECONDITION for this round's record of another length; DATA_LOSS
// for bytes that are not a record (length, magic, version, CRC) or longer
// than `buffer` (which must hold the longest record the caller writes);
// RESOURCE_EXHAUSTED when `buffer` is shorter than
// SecAggInputRecordBytes(words.size()); Storage's other errors.
Status LoadSecAggInput(Storage& storage, const char* key,
                       SecAggInputRound round, ByteSpan buffer,
                       Span<uint32_t> words);

// Writes `words` as the record of `round` (buffer as for Load).
Status StoreSecAggInput(Storage& storage, const char* key,
                        SecAggInputRound round, ByteSpan buffer,
                        Span<const uint32_t> words);

// The words of `round`: the stored ones when the record exists (`encoded`
// false; the update and `random` are not used), otherwise DdgEncodeUpdate's
// with the task's plan and seed, persisted before this returns (`encoded`
// true). A record that does not read (DATA_LOSS, UNAVAILABLE) is never
// replaced by a new encoding: the error is returned. On any error `words`
// is zeroized: words that could not be persisted must not be sent.
Status EncodeSecAggInputOnce(const SecureAggregationTask& task,
                             SecAggInputRound round, Span<const Real> update,
                             RandomByteSource& random,
                             DdgEncoderScratch scratch, Storage& storage,
                             const char* key, ByteSpan buffer,
                             Span<uint32_t> words, bool& encoded);

}  // namespace edgeadmm
