#include "edgeadmm/device_state.h"

#include <cmath>
#include <cstring>

#include "edgeadmm/byte_order.h"
#include "edgeadmm/config.h"
#include "edgeadmm/crc32.h"
#include "edgeadmm/result.h"
#include "state/ledger_blob.h"

namespace edgeadmm {
namespace {

// Format 1 stored the algorithm as an index 0..3 into these wire numbers
// (algorithm.h), the four algorithms devices ran when format 2 came in.
constexpr uint8_t kFormat1WireNumbers[] = {1, 2, 3, 5};

// The algorithm byte of a blob of `version`; false if out of range.
bool DecodeAlgorithm(uint64_t version, uint64_t byte, AlgorithmKind& out) {
  if (version == 1) {
    if (byte >= sizeof(kFormat1WireNumbers)) return false;
    out = static_cast<AlgorithmKind>(kFormat1WireNumbers[byte]);
    return true;
  }
  if (!IsAlgorithmKind(static_cast<uint32_t>(byte))) return false;
  out = static_cast<AlgorithmKind>(byte);
  return true;
}

// Little-endian writer over a buffer whose size was checked by the caller.
class BlobWriter {
 public:
  explicit BlobWriter(std::byte* data) : data_(data) {}
  void Put(uint64_t value, size_t bytes) {
    StoreLittleEndian(data_ + offset_, value, bytes);
    offset_ += bytes;
  }
  // Reals are stored as binary64 whatever Real is, so a blob is the same
  // format on every target (a float widens exactly).
  void PutReals(Span<const Real> values) {
    for (const Real r : values) {
      const double v = static_cast<double>(r);
      uint64_t bits = 0;
      std::memcpy(&bits, &v, sizeof(bits));
      Put(bits, 8);
    }
  }
  // The next `bytes` bytes, for a part another codec writes.
  std::byte* Reserve(size_t bytes) {
    std::byte* at = data_ + offset_;
    offset_ += bytes;
    return at;
  }
  size_t offset() const { return offset_; }

 private:
  std::byte* data_;
  size_t offset_ = 0;
};

// Little-endian reader over a buffer whose size was checked by the caller.
class BlobReader {
 public:
  explicit BlobReader(const std::byte* data) : data_(data) {}
  uint64_t Get(size_t bytes) {
    const uint64_t value = LoadLittleEndian(data_ + offset_, bytes);
    offset_ += bytes;
    return value;
  }
  double GetReal() {
    const uint64_t bits = Get(8);
    double value = 0;
    std::memcpy(&value, &bits, sizeof(value));
    return value;
  }
  // Skips `count` reals and reports whether all of them are finite.
  bool SkipFiniteReals(size_t count) {
    bool finite = true;
    for (size_t i = 0; i < count; ++i) {
      if (!std::isfinite(GetReal())) finite = false;
    }
    return finite;
  }
  void ReadReals(Span<Real> out) {
    for (Real& v : out) v = static_cast<Real>(GetReal());
  }
  size_t offset() const { return offset_; }
  void Seek(size_t offset) { offset_ = offset; }

 private:
  const std::byte* data_;
  size_t offset_ = 0;
};

bool AllFinite(Span<const Real> values) {
  for (const Real v : values) {
    if (!std::isfinite(v)) return false;
  }
  return true;
}

}  // namespace

StatusWithSize SerializeDeviceState(const DeviceState& state, ByteSpan out) {
  const size_t primary_dim = state.primary.size();
  const size_t secondary_dim = state.secondary.size();
  if (primary_dim > EDGEADMM_CFG_MAX_FEATURES ||
      secondary_dim > EDGEADMM_CFG_MAX_FEATURES ||
      !IsAlgorithmKind(static_cast<uint8_t>(state.algorithm)) ||
      !AllFinite(state.primary) || !AllFinite(state.secondary)) {
    return StatusWithSize(Status::InvalidArgument(), 0);
  }
  const size_t size = DeviceStateSerializedSize(primary_dim, secondary_dim);
  if (out.size() < size) return StatusWithSize(Status::ResourceExhausted(), 0);

  BlobWriter w(out.data());
  for (const char c : kDeviceStateMagic) w.Put(static_cast<uint8_t>(c), 1);
  w.Put(kDeviceStateFormatVersion, 2);
  w.Put(static_cast<uint8_t>(state.algorithm), 1);
  w.Put(0, 1);
  w.Put(state.job_id, 8);
  w.Put(state.last_round, 8);
  w.Put(state.local_iteration, 4);
  w.Put(state.drbg_reseed_count, 4);
  w.Put(primary_dim, 4);
  w.Put(secondary_dim, 4);
  internal::WriteLedgerBlob(state.ledger,
                            w.Reserve(internal::kLedgerBlobBytes));
  w.PutReals(state.primary);
  w.PutReals(state.secondary);
  w.Put(Crc32(ConstByteSpan(out.data(), w.offset())), 4);
  EDGEADMM_ASSERT(w.offset() == size);
  return StatusWithSize(size);
}

namespace {

// A blob that passed every check of DeserializeDeviceState except the dims.
struct ParsedBlob {
  DeviceStateInfo info;
  uint64_t last_round;
  uint32_t local_iteration;
  uint32_t drbg_reseed_count;
  size_t vectors_offset;
};

// Validates everything (length, CRC, fields, ledger, finite values); DATA_LOSS
// on any failure. Writes only `parsed`.
Status ParseBlob(ConstByteSpan in, ParsedBlob& parsed) {
  // 1. Length: the header must be there and announce exactly in.size().
  if (in.size() < kDeviceStateHeaderBytes) return Status::DataLoss();
  BlobReader r(in.data());
  r.Seek(32);
  const uint64_t primary_field = r.Get(4);
  const uint64_t secondary_field = r.Get(4);
  if (primary_field > EDGEADMM_CFG_MAX_FEATURES ||
      secondary_field > EDGEADMM_CFG_MAX_FEATURES) {
    return Status::DataLoss();
  }
  const size_t primary_dim = static_cast<size_t>(primary_field);
  const size_t secondary_dim = static_cast<size_t>(secondary_field);
  if (in.size() != DeviceStateSerializedSize(primary_dim, secondary_dim)) {
    return Status::DataLoss();
  }
  // 2. CRC over everything before the trailing CRC field.
  const size_t body = in.size() - 4;
  r.Seek(body);
  if (r.Get(4) != Crc32(in.first(body))) return Status::DataLoss();

  // 3. Every field in range.
  r.Seek(0);
  for (const char c : kDeviceStateMagic) {
    if (r.Get(1) != static_cast<uint8_t>(c)) return Status::DataLoss();
  }
  const uint64_t version = r.Get(2);
  if (version != 1 && version != kDeviceStateFormatVersion) {
    return Status::DataLoss();
  }
  if (!DecodeAlgorithm(version, r.Get(1), parsed.info.algorithm) ||
      r.Get(1) != 0) {
    return Status::DataLoss();
  }
  parsed.info.job_id = r.Get(8);
  parsed.last_round = r.Get(8);
  parsed.local_iteration = static_cast<uint32_t>(r.Get(4));
  parsed.drbg_reseed_count = static_cast<uint32_t>(r.Get(4));
  parsed.info.primary_dim = primary_dim;
  parsed.info.secondary_dim = secondary_dim;
  EDGEADMM_TRY(internal::ReadLedgerBlob(in.data() + 40, parsed.info.ledger));
  r.Seek(40 + internal::kLedgerBlobBytes);
  parsed.vectors_offset = r.offset();
  if (!r.SkipFiniteReals(primary_dim + secondary_dim)) {
    return Status::DataLoss();
  }
  return Status::Ok();
}

}  // namespace

Result<DeviceStateInfo> InspectDeviceState(ConstByteSpan in) {
  ParsedBlob parsed = {};
  EDGEADMM_TRY(ParseBlob(in, parsed));
  return parsed.info;
}

Status DeserializeDeviceState(ConstByteSpan in, DeviceState& state) {
  ParsedBlob parsed = {};
  EDGEADMM_TRY(ParseBlob(in, parsed));
  // The blob is sound; it must also fit this state.
  if (parsed.info.primary_dim != state.primary.size() ||
      parsed.info.secondary_dim != state.secondary.size()) {
    return Status::InvalidArgument();
  }
  // Commit.
  BlobReader r(in.data());
  r.Seek(parsed.vectors_offset);
  r.ReadReals(state.primary);
  r.ReadReals(state.secondary);
  state.job_id = parsed.info.job_id;
  state.algorithm = parsed.info.algorithm;
  state.last_round = parsed.last_round;
  state.local_iteration = parsed.local_iteration;
  state.drbg_reseed_count = parsed.drbg_reseed_count;
  state.ledger = parsed.info.ledger;
  return Status::Ok();
}

}  // namespace edgeadmm
