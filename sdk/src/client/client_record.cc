#include "edgeadmm/client_record.h"

#include <cstring>

#include "edgeadmm/byte_order.h"
#include "edgeadmm/crc32.h"
#include "edgeadmm/result.h"
#include "state/ledger_blob.h"

namespace edgeadmm {
namespace {

constexpr uint16_t kFlagPending = 1;
// The pending upload is a streamed share's recipe, not the Update's bytes.
constexpr uint16_t kFlagStreamed = 2;

static_assert(kEarlierLedgerBytes == internal::kLedgerBlobBytes,
              "the earlier-jobs part is one ledger blob");

// Format 1 had no earlier-jobs ledger.
constexpr size_t RecordBytes(uint64_t version, size_t state, size_t upload) {
  return version == 1 ? ClientRecordBytes(state, upload) - kEarlierLedgerBytes
                      : ClientRecordBytes(state, upload);
}

}  // namespace

StatusWithSize WriteClientRecord(ConstByteSpan state, uint64_t job_id,
                                 uint64_t round_id, ConstByteSpan upload,
                                 const DevicePrivacyLedger& earlier_jobs,
                                 ByteSpan out, bool streamed_upload) {
  if (state.empty() || state.size() > UINT32_MAX ||
      upload.size() > UINT32_MAX || (streamed_upload && upload.empty())) {
    return StatusWithSize(Status::InvalidArgument(), 0);
  }
  const size_t total = ClientRecordBytes(state.size(), upload.size());
  if (out.size() < total) return StatusWithSize(Status::ResourceExhausted(), 0);
  const bool pending = !upload.empty();
  std::byte* p = out.data();
  // Body first (memmove: the parts may alias `out`, e.g. when a pending
  // upload is cleared in place), then the header in front of it.
  std::memmove(p + kClientRecordHeaderBytes, state.data(), state.size());
  if (pending) {
    std::memmove(p + kClientRecordHeaderBytes + state.size(), upload.data(),
                 upload.size());
  }
  internal::WriteLedgerBlob(earlier_jobs, p + kClientRecordHeaderBytes +
                                              state.size() + upload.size());
  std::memcpy(p, kClientRecordMagic, 4);
  StoreLittleEndian(p + 4, kClientRecordFormatVersion, 2);
  StoreLittleEndian(
      p + 6,
      (pending ? kFlagPending : 0) | (streamed_upload ? kFlagStreamed : 0), 2);
  StoreLittleEndian(p + 8, job_id, 8);
  StoreLittleEndian(p + 16, round_id, 8);
  StoreLittleEndian(p + 24, state.size(), 4);
  StoreLittleEndian(p + 28, upload.size(), 4);
  const size_t body = total - 4;
  StoreLittleEndian(p + body, Crc32(ConstByteSpan(p, body)), 4);
  return StatusWithSize(total);
}

Status ParseClientRecord(ConstByteSpan in, ClientRecordView& out) {
  if (in.size() < RecordBytes(1, 0, 0)) return Status::DataLoss();
  const std::byte* p = in.data();
  const uint64_t version = LoadLittleEndian(p + 4, 2);
  if (std::memcmp(p, kClientRecordMagic, 4) != 0 ||
      (version != 1 && version != kClientRecordFormatVersion)) {
    return Status::DataLoss();
  }
  const uint64_t flags = LoadLittleEndian(p + 6, 2);
  // 32-bit fields: they fit size_t on every target.
  const size_t state_size = static_cast<size_t>(LoadLittleEndian(p + 24, 4));
  const size_t upload_size = static_cast<size_t>(LoadLittleEndian(p + 28, 4));
  if ((flags & ~static_cast<uint64_t>(kFlagPending | kFlagStreamed)) != 0 ||
      state_size == 0 || ((flags & kFlagPending) != 0) != (upload_size != 0) ||
      ((flags & kFlagStreamed) != 0 && (flags & kFlagPending) == 0) ||
      in.size() != RecordBytes(version, state_size, upload_size)) {
    return Status::DataLoss();
  }
  const size_t body = in.size() - 4;
  if (Crc32(ConstByteSpan(p, body)) != LoadLittleEndian(p + body, 4)) {
    return Status::DataLoss();
  }
  DevicePrivacyLedger earlier;
  if (version != 1) {
    EDGEADMM_TRY(internal::ReadLedgerBlob(
        p + kClientRecordHeaderBytes + state_size + upload_size, earlier));
  }
  out.has_pending = upload_size != 0;
  out.streamed_upload = (flags & kFlagStreamed) != 0;
  out.job_id = LoadLittleEndian(p + 8, 8);
  out.round_id = LoadLittleEndian(p + 16, 8);
  out.state = ConstByteSpan(p + kClientRecordHeaderBytes, state_size);
  out.upload =
      ConstByteSpan(p + kClientRecordHeaderBytes + state_size, upload_size);
  out.earlier_jobs = earlier;
  return Status::Ok();
}

}  // namespace edgeadmm
