// Device state blob: round trip, every corrupted byte and every truncation
// detected (DATA_LOSS, target untouched), dims mismatch, format pinning.
// Portable.
#include "edgeadmm/device_state.h"

#include <cmath>
#include <cstring>

#include "edgeadmm/crc32.h"
#include "gtest/gtest.h"

namespace edgeadmm {
namespace {

constexpr size_t kDim = 4;
constexpr size_t kBlobBytes = DeviceStateSerializedSize(kDim);
// CRC-32 of FillExample's blob, cross-checked by rebuilding the blob with
// Python's struct.pack('<...') and zlib.crc32. Any change of layout, byte
// order or ledger arithmetic changes it.
constexpr uint32_t kGoldenCrc = 0x86284001u;

// A DeviceState owning its vectors.
struct OwnedState {
  Real primary[kDim] = {};
  Real secondary[kDim] = {};
  DeviceState state;
  OwnedState() {
    state.primary = Span<Real>(primary, kDim);
    state.secondary = Span<Real>(secondary, kDim);
  }
};

void FillExample(OwnedState& s) {
  s.state.job_id = 0x0123456789ABCDEFull;
  s.state.algorithm = AlgorithmKind::kLinearizedAdmm;
  s.state.last_round = 41;
  s.state.local_iteration = 42;
  s.state.drbg_reseed_count = 7;
  for (size_t i = 0; i < kDim; ++i) {
    s.primary[i] = 0.25 * static_cast<Real>(i) - 1.0;
    s.secondary[i] = 1e-3 / static_cast<Real>(i + 1);
  }
  EXPECT_TRUE(s.state.ledger.Charge(2.0, 3.0).ok());
  EXPECT_TRUE(s.state.ledger.Charge(2.0, 4.0).ok());
}

// Target preset to distinct values, so any write into it is visible.
void FillTarget(OwnedState& s) {
  s.state.job_id = 99;
  s.state.algorithm = AlgorithmKind::kDpSgd;
  s.state.last_round = UINT64_MAX;
  s.state.local_iteration = 1;
  s.state.drbg_reseed_count = 2;
  for (size_t i = 0; i < kDim; ++i) {
    s.primary[i] = 100.0 + static_cast<Real>(i);
    s.secondary[i] = -100.0;
  }
  EXPECT_TRUE(s.state.ledger.Charge(1.0, 1.0).ok());
}

bool SameState(const DeviceState& a, const DeviceState& b) {
  if (a.job_id != b.job_id || a.algorithm != b.algorithm ||
      a.last_round != b.last_round || a.local_iteration != b.local_iteration ||
      a.drbg_reseed_count != b.drbg_reseed_count ||
      a.primary.size() != b.primary.size() ||
      a.secondary.size() != b.secondary.size() ||
      a.ledger.participations() != b.ledger.participations()) {
    return false;
  }
  for (size_t i = 0; i < a.primary.size(); ++i) {
    if (a.primary[i] != b.primary[i]) return false;
  }
  for (size_t i = 0; i < a.secondary.size(); ++i) {
    if (a.secondary[i] != b.secondary[i]) return false;
  }
  for (size_t i = 0; i < DevicePrivacyLedger::kOrderCount; ++i) {
    if (a.ledger.rdp()[i] != b.ledger.rdp()[i]) return false;
  }
  return true;
}

size_t Serialize(const DeviceState& state, std::byte* blob, size_t capacity) {
  const StatusWithSize written =
      SerializeDeviceState(state, ByteSpan(blob, capacity));
  EXPECT_TRUE(written.ok());
  return written.size();
}

void RewriteCrc(std::byte* blob, size_t size) {
  const uint32_t crc = Crc32(ConstByteSpan(blob, size - 4));
  for (size_t i = 0; i < 4; ++i) {
    blob[size - 4 + i] = static_cast<std::byte>(crc >> (8 * i));
  }
}

TEST(DeviceStateTest, RoundTripsEverything) {
  OwnedState source, target;
  FillExample(source);
  FillTarget(target);
  std::byte blob[kBlobBytes];
  const size_t size = Serialize(source.state, blob, sizeof(blob));
  EXPECT_EQ(size, kBlobBytes);
  ASSERT_TRUE(DeserializeDeviceState(ConstByteSpan(blob, size), target.state)
                  .ok());
  EXPECT_TRUE(SameState(source.state, target.state));
  EXPECT_EQ(target.state.ledger.participations(), 2u);
  EXPECT_EQ(target.primary[3], 0.25 * 3 - 1.0);
}

TEST(DeviceStateTest, RoundTripsWithEmptySecondary) {
  OwnedState source, target;
  FillExample(source);
  source.state.secondary = Span<Real>();
  target.state.secondary = Span<Real>();
  std::byte blob[kBlobBytes];
  const size_t size = Serialize(source.state, blob, sizeof(blob));
  EXPECT_EQ(size, DeviceStateSerializedSize(kDim, 0));
  ASSERT_TRUE(DeserializeDeviceState(ConstByteSpan(blob, size), target.state)
                  .ok());
  EXPECT_TRUE(SameState(source.state, target.state));
}

TEST(DeviceStateTest, EveryCorruptedByteIsDetectedAndChangesNothing) {
  OwnedState source, target, snapshot;
  FillExample(source);
  FillTarget(target);
  FillTarget(snapshot);
  std::byte blob[kBlobBytes];
  const size_t size = Serialize(source.state, blob, sizeof(blob));
  for (const uint8_t mask : {0xFFu, 0x01u, 0x80u}) {
    for (size_t i = 0; i < size; ++i) {
      blob[i] ^= std::byte{mask};
      EXPECT_EQ(DeserializeDeviceState(ConstByteSpan(blob, size), target.state),
                Status::DataLoss())
          << "byte " << i << " mask " << static_cast<int>(mask);
      blob[i] ^= std::byte{mask};
    }
  }
  EXPECT_TRUE(SameState(target.state, snapshot.state));
}

TEST(DeviceStateTest, EveryTruncationIsDetectedAndChangesNothing) {
  OwnedState source, target, snapshot;
  FillExample(source);
  FillTarget(target);
  FillTarget(snapshot);
  std::byte blob[kBlobBytes + 1];
  const size_t size = Serialize(source.state, blob, sizeof(blob));
  for (size_t length = 0; length < size; ++length) {
    EXPECT_EQ(DeserializeDeviceState(ConstByteSpan(blob, length), target.state),
              Status::DataLoss())
        << length;
  }
  blob[size] = std::byte{0};  // one trailing byte too many
  EXPECT_EQ(DeserializeDeviceState(ConstByteSpan(blob, size + 1), target.state),
            Status::DataLoss());
  EXPECT_TRUE(SameState(target.state, snapshot.state));
}

TEST(DeviceStateTest, ValidCrcButBadContentIsDataLoss) {
  OwnedState source, target, snapshot;
  FillExample(source);
  FillTarget(target);
  FillTarget(snapshot);
  std::byte blob[kBlobBytes];
  const size_t size = Serialize(source.state, blob, sizeof(blob));
  struct Patch {
    size_t offset;
    uint8_t value;
  };
  // Magic, version, algorithm enum, reserved byte, order count, the sign and
  // exponent of an RDP value (negative), a primary value made NaN.
  const size_t primary0 = 48 + 8 * DevicePrivacyLedger::kOrderCount;
  const Patch patches[] = {{0, 'X'},  {4, 2},    {6, 4},    {7, 1},
                           {44, 1},   {48 + 7, 0xC0}, {primary0 + 7, 0x7F},
                           {primary0 + 6, 0xF8}};
  for (const Patch& p : patches) {
    std::byte copy[kBlobBytes];
    std::memcpy(copy, blob, size);
    copy[p.offset] = std::byte{p.value};
    if (p.offset == primary0 + 6) copy[primary0 + 7] = std::byte{0x7F};
    RewriteCrc(copy, size);
    EXPECT_EQ(DeserializeDeviceState(ConstByteSpan(copy, size), target.state),
              Status::DataLoss())
        << "offset " << p.offset;
  }
  EXPECT_TRUE(SameState(target.state, snapshot.state));
}

TEST(DeviceStateTest, OtherDimsAreInvalidArgumentAndChangeNothing) {
  OwnedState source, target, snapshot;
  FillExample(source);
  FillTarget(target);
  FillTarget(snapshot);
  std::byte blob[kBlobBytes];
  const size_t size = Serialize(source.state, blob, sizeof(blob));
  target.state.primary = Span<Real>(target.primary, kDim - 1);
  EXPECT_EQ(DeserializeDeviceState(ConstByteSpan(blob, size), target.state),
            Status::InvalidArgument());
  target.state.primary = Span<Real>(target.primary, kDim);
  target.state.secondary = Span<Real>();
  EXPECT_EQ(DeserializeDeviceState(ConstByteSpan(blob, size), target.state),
            Status::InvalidArgument());
  target.state.secondary = Span<Real>(target.secondary, kDim);
  EXPECT_TRUE(SameState(target.state, snapshot.state));
}

TEST(DeviceStateTest, SerializeChecksItsInput) {
  OwnedState source;
  FillExample(source);
  std::byte blob[kBlobBytes];
  EXPECT_EQ(SerializeDeviceState(source.state, ByteSpan(blob, kBlobBytes - 1))
                .status(),
            Status::ResourceExhausted());
  source.primary[1] = std::nan("");
  EXPECT_EQ(SerializeDeviceState(source.state, ByteSpan(blob, kBlobBytes))
                .status(),
            Status::InvalidArgument());
  source.primary[1] = INFINITY;
  EXPECT_EQ(SerializeDeviceState(source.state, ByteSpan(blob, kBlobBytes))
                .status(),
            Status::InvalidArgument());
  source.primary[1] = 0;
  source.state.algorithm = static_cast<AlgorithmKind>(9);
  EXPECT_EQ(SerializeDeviceState(source.state, ByteSpan(blob, kBlobBytes))
                .status(),
            Status::InvalidArgument());
}

TEST(DeviceStateTest, FormatIsPinned) {
  // Layout and byte order must not change silently (and must be the same on
  // the MCU): header bytes and the CRC of a fixed state.
  OwnedState source;
  FillExample(source);
  std::byte blob[kBlobBytes];
  const size_t size = Serialize(source.state, blob, sizeof(blob));
  const uint8_t header[] = {'E', 'A', 'D', 'S', 1, 0, 1, 0,
                            0xEF, 0xCD, 0xAB, 0x89, 0x67, 0x45, 0x23, 0x01,
                            41, 0, 0, 0, 0, 0, 0, 0,
                            42, 0, 0, 0, 7, 0, 0, 0,
                            4, 0, 0, 0, 4, 0, 0, 0,
                            2, 0, 0, 0,
                            static_cast<uint8_t>(DevicePrivacyLedger::kOrderCount), 0, 0, 0};
  for (size_t i = 0; i < sizeof(header); ++i) {
    EXPECT_EQ(static_cast<uint8_t>(blob[i]), header[i]) << i;
  }
  uint32_t crc = 0;
  for (size_t i = 0; i < 4; ++i) {
    crc |= static_cast<uint32_t>(blob[size - 4 + i]) << (8 * i);
  }
  EXPECT_EQ(crc, kGoldenCrc);
}

}  // namespace
}  // namespace edgeadmm
