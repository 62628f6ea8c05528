// ClientRecord: the one blob a DeviceClient persists (Storage key "client").
//
// It holds BOTH the trainer state after the last local step and, while an
// upload is pending, the encoded Update bytes with their (job, round). One
// atomic Storage::Write replaces the whole record, so a crash can never
// separate the new state (u_i, ledger, last round) from the upload computed
// with it: after a reboot the device either still has the old state and no
// upload, or the new state and the exact bytes to resend.
//
// The record also carries the device's ledger of its EARLIER jobs (every
// job before the one of the state blob): the lifetime budget across jobs
// (docs/privacy.md, "Lifetime budget") is checked against it plus the
// state's own ledger, and a new job folds the old job's ledger into it in
// the same atomic write that starts the new job's state.
//
// Layout (integers little-endian, reals as IEEE 754 binary64 bit patterns):
//   offset size  field
//        0    4  magic "EACR"
//        4    2  format version (kClientRecordFormatVersion)
//        6    2  flags (bit 0: an upload is pending; bit 1: it is streamed,
//                U bytes are then its recipe, not the Update: a streaming
//                record-space party, edgeadmm/streamed_share_upload.h)
//        8    8  job_id of the last local step
//       16    8  round_id of the last local step
//       24    4  S = bytes of the trainer state blob (device_state.h)
//       28    4  U = bytes of the encoded Update (0 if none pending)
//       32    S  trainer state blob
//     32+S    U  encoded Update (wire/update.h), sent verbatim
//   32+S+U    L  earlier jobs' ledger: participations (4), order count K (4),
//                RDP per order (8·K), L = kEarlierLedgerBytes
// 32+S+U+L    4  CRC-32 (crc32.h) of every byte before it
// Format 1 (no earlier-jobs ledger) still loads, as a device with no
// earlier jobs.
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/device_privacy_ledger.h"
#include "edgeadmm/span.h"
#include "edgeadmm/status.h"

namespace edgeadmm {

inline constexpr char kClientRecordMagic[4] = {'E', 'A', 'C', 'R'};
inline constexpr uint16_t kClientRecordFormatVersion = 2;
inline constexpr size_t kClientRecordHeaderBytes = 32;
inline constexpr size_t kEarlierLedgerBytes =
    8 + 8 * DevicePrivacyLedger::kOrderCount;

// Bytes of a record with a state blob of `state_bytes` and an upload of
// `upload_bytes`.
constexpr size_t ClientRecordBytes(size_t state_bytes, size_t upload_bytes) {
  return kClientRecordHeaderBytes + state_bytes + upload_bytes +
         kEarlierLedgerBytes + 4;
}

// A parsed record: views into the caller's buffer (no copy), and the
// earlier jobs' ledger (validated like DevicePrivacyLedger::Restore).
struct ClientRecordView {
  bool has_pending = false;
  uint64_t job_id = 0;    // of the last local step (and the pending upload)
  uint64_t round_id = 0;  // of the last local step (and the pending upload)
  ConstByteSpan state;    // trainer state blob
  ConstByteSpan upload;   // encoded Update (empty if none pending)
  // `upload` is a streamed share's recipe (flag bit 1), not the Update.
  bool streamed_upload = false;
  DevicePrivacyLedger earlier_jobs;  // empty for a format-1 record
};

// Writes a record into `out`: the state after the local step of (job_id,
// round_id), unless `upload` is empty its pending upload (a streamed
// share's recipe if `streamed_upload`), and the ledger of the device's
// earlier jobs. `state` and `upload` may alias the matching
// parts of `out` (they are moved, not copied). Returns the bytes written,
// or RESOURCE_EXHAUSTED if `out` is too small, INVALID_ARGUMENT if the state
// is empty or a part exceeds 2^32 - 1 bytes.
StatusWithSize WriteClientRecord(ConstByteSpan state, uint64_t job_id,
                                 uint64_t round_id, ConstByteSpan upload,
                                 const DevicePrivacyLedger& earlier_jobs,
                                 ByteSpan out, bool streamed_upload = false);

// Parses and checks a record (length, magic, version, flags, CRC, the
// earlier jobs' ledger) without copying the state or upload. DATA_LOSS for
// anything corrupt or truncated, or an unknown flag.
Status ParseClientRecord(ConstByteSpan in, ClientRecordView& out);

}  // namespace edgeadmm
