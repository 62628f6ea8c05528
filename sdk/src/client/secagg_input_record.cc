// The device's secure-aggregation input, encoded once and persisted
// (edgeadmm/secagg_input_record.h).
#include "edgeadmm/secagg_input_record.h"

#include <cstring>

#include "edgeadmm/byte_order.h"
#include "edgeadmm/crc32.h"

namespace edgeadmm {
namespace {

constexpr char kMagic[4] = {'E', 'A', 'S', 'I'};
constexpr uint8_t kVersion = 1;

void Zeroize(Span<uint32_t> words) {
  for (uint32_t& w : words) w = 0;
}

}  // namespace

Status StoreSecAggInput(Storage& storage, const char* key,
                        SecAggInputRound round, ByteSpan buffer,
                        Span<const uint32_t> words) {
  const size_t size = SecAggInputRecordBytes(words.size());
  if (buffer.size() < size || words.size() > UINT32_MAX) {
    return Status::ResourceExhausted();
  }
  std::byte* out = buffer.data();
  std::memcpy(out, kMagic, 4);
  out[4] = static_cast<std::byte>(kVersion);
  std::memset(out + 5, 0, 3);
  StoreLittleEndian(out + 8, round.job_id, 8);
  StoreLittleEndian(out + 16, round.round_id, 8);
  StoreLittleEndian(out + 24, words.size(), 4);
  std::memset(out + 28, 0, 4);
  for (size_t i = 0; i < words.size(); ++i) {
    StoreLittleEndian(out + 32 + 4 * i, words[i], 4);
  }
  const size_t body = size - 4;
  StoreLittleEndian(out + body, Crc32(ConstByteSpan(out, body)), 4);
  return storage.Write(key, ConstByteSpan(out, size));
}

Status LoadSecAggInput(Storage& storage, const char* key,
                       SecAggInputRound round, ByteSpan buffer,
                       Span<uint32_t> words) {
  const size_t size = SecAggInputRecordBytes(words.size());
  if (buffer.size() < size) return Status::ResourceExhausted();
  const StatusWithSize read = storage.Read(key, buffer);
  // Longer than the buffer: not a record this client wrote (its buffer holds
  // the longest one).
  if (read.status() == Status::ResourceExhausted()) return Status::DataLoss();
  if (!read.ok()) return read.status();
  const std::byte* in = buffer.data();
  const size_t got = read.size();
  if (got < 36 || std::memcmp(in, kMagic, 4) != 0 ||
      static_cast<uint8_t>(in[4]) != kVersion ||
      LoadLittleEndian(in + got - 4, 4) != Crc32(ConstByteSpan(in, got - 4)) ||
      36 + 4 * LoadLittleEndian(in + 24, 4) !=
          uint64_t{got}) {  // in 64 bits: no wrap
    return Status::DataLoss();
  }
  if (LoadLittleEndian(in + 8, 8) != round.job_id ||
      LoadLittleEndian(in + 16, 8) != round.round_id) {
    return Status::NotFound();  // another round's record
  }
  // This round was encoded with another length: encoding again would be a
  // second release of the round.
  if (got != size) return Status::FailedPrecondition();
  for (size_t i = 0; i < words.size(); ++i) {
    words[i] = static_cast<uint32_t>(LoadLittleEndian(in + 32 + 4 * i, 4));
  }
  return Status::Ok();
}

Status EncodeSecAggInputOnce(const SecureAggregationTask& task,
                             SecAggInputRound round, Span<const Real> update,
                             RandomByteSource& random,
                             DdgEncoderScratch scratch, Storage& storage,
                             const char* key, ByteSpan buffer,
                             Span<uint32_t> words, bool& encoded) {
  encoded = false;
  if (!task.enabled) {
    Zeroize(words);
    return Status::InvalidArgument();
  }
  Status status = LoadSecAggInput(storage, key, round, buffer, words);
  if (status.ok()) return status;
  if (status == Status::NotFound()) {
    status = DdgEncodeUpdate(task.plan, task.seed(), round.round_id, update,
                             random, scratch, words);
    if (status.ok())
      status =
          StoreSecAggInput(storage, key, round, buffer,
                           Span<const uint32_t>(words.data(), words.size()));
    encoded = status.ok();
  }
  if (!status.ok()) Zeroize(words);
  return status;
}

}  // namespace edgeadmm
