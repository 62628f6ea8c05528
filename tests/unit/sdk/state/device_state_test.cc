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
// CRC-32 of FillExample's format-2 blob (algorithm byte 2 = kLinearizedAdmm),
// cross-checked by rebuilding the blob with Python's struct.pack('<...') and
// zlib.crc32 (the same script gives 0x86284001, the format-1 value this
// replaced, with version 1 and algorithm byte 1). Any change of layout, byte
// order or ledger arithmetic changes it.
// The state's vectors are stored as binary64; a float build's values are
// float-rounded (1e-3/(i+1)), hence its own CRC.
constexpr uint32_t kGoldenCrc = sizeof(Real) == 4 ? 0xD13D3F22u : 0xB33D0408u;

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

// Serializes FillExample into blob_ and presets target_ (and its copy
// snapshot_) with FillTarget.
class DeviceStateBlobTest : public ::testing::Test {
 protected:
  void SetUp() override {
    FillExample(source_);
    FillTarget(target_);
    FillTarget(snapshot_);
    size_ = Serialize(source_.state, blob_, sizeof(blob_));
  }
  Status Deserialize(size_t length) {
    return DeserializeDeviceState(ConstByteSpan(blob_, length), target_.state);
  }

  OwnedState source_, target_, snapshot_;
  std::byte blob_[kBlobBytes + 1] = {};  // one spare byte
  size_t size_ = 0;
};

TEST_F(DeviceStateBlobTest, RoundTripsEverything) {
  EXPECT_EQ(size_, kBlobBytes);
  ASSERT_TRUE(Deserialize(size_).ok());
  EXPECT_TRUE(SameState(source_.state, target_.state));
  EXPECT_FALSE(SameState(target_.state, snapshot_.state));
  EXPECT_EQ(target_.state.ledger.participations(), 2u);
  EXPECT_EQ(target_.primary[3], 0.25 * 3 - 1.0);
}

TEST(DeviceStateTest, RoundTripsWithEmptySecondary) {
  OwnedState source, target;
  FillExample(source);
  source.state.secondary = Span<Real>();
  target.state.secondary = Span<Real>();
  std::byte blob[kBlobBytes];
  const size_t size = Serialize(source.state, blob, sizeof(blob));
  EXPECT_EQ(size, DeviceStateSerializedSize(kDim, 0));
  ASSERT_TRUE(
      DeserializeDeviceState(ConstByteSpan(blob, size), target.state).ok());
  EXPECT_TRUE(SameState(source.state, target.state));
}

TEST_F(DeviceStateBlobTest, EveryCorruptedByteIsDetectedAndChangesNothing) {
  for (const unsigned mask : {0xFFu, 0x01u, 0x80u}) {
    for (size_t i = 0; i < size_; ++i) {
      blob_[i] ^= static_cast<std::byte>(mask);
      EXPECT_EQ(InspectDeviceState(ConstByteSpan(blob_, size_)).status(),
                Status::DataLoss());
      EXPECT_EQ(Deserialize(size_), Status::DataLoss())
          << "byte " << i << " mask " << static_cast<int>(mask);
      blob_[i] ^= static_cast<std::byte>(mask);
    }
  }
  EXPECT_TRUE(SameState(target_.state, snapshot_.state));
}

TEST_F(DeviceStateBlobTest, EveryTruncationIsDetectedAndChangesNothing) {
  for (size_t length = 0; length < size_; ++length) {
    EXPECT_EQ(Deserialize(length), Status::DataLoss()) << length;
  }
  blob_[size_] = std::byte{0};  // one trailing byte too many
  EXPECT_EQ(Deserialize(size_ + 1), Status::DataLoss());
  EXPECT_TRUE(SameState(target_.state, snapshot_.state));
}

TEST_F(DeviceStateBlobTest, ValidCrcButBadContentIsDataLoss) {
  struct Patch {
    size_t offset;
    uint8_t value;
  };
  // Magic, version, algorithm enum, reserved byte, order count, the sign and
  // exponent of an RDP value (negative), a primary value made NaN.
  const size_t primary0 = 48 + 8 * DevicePrivacyLedger::kOrderCount;
  const Patch patches[] = {{0, 'X'},
                           {4, 3},
                           {6, 4},
                           {7, 1},
                           {44, 1},
                           {48 + 7, 0xC0},
                           {primary0 + 7, 0x7F},
                           {primary0 + 6, 0xF8}};
  for (const Patch& p : patches) {
    std::byte copy[kBlobBytes];
    std::memcpy(copy, blob_, size_);
    copy[p.offset] = std::byte{p.value};
    if (p.offset == primary0 + 6) copy[primary0 + 7] = std::byte{0x7F};
    RewriteCrc(copy, size_);
    EXPECT_EQ(DeserializeDeviceState(ConstByteSpan(copy, size_), target_.state),
              Status::DataLoss())
        << "offset " << p.offset;
  }
  EXPECT_TRUE(SameState(target_.state, snapshot_.state));
}

TEST_F(DeviceStateBlobTest, Format1BlobsStillLoad) {
  // Format 1 numbered the algorithms 0..3 (prox-admm, dp-admm, penalty
  // perturbation, dp-sgd): a device updated in the field keeps its state.
  const struct {
    uint8_t byte;
    bool valid;
    AlgorithmKind algorithm;
  } cases[] = {{0, true, AlgorithmKind::kProxAdmm},
               {1, true, AlgorithmKind::kLinearizedAdmm},
               {2, true, AlgorithmKind::kPenaltyPerturbation},
               {3, true, AlgorithmKind::kDpSgd},
               {4, false, AlgorithmKind::kProxAdmm},
               {5, false, AlgorithmKind::kProxAdmm}};
  for (const auto& c : cases) {
    std::byte copy[kBlobBytes];
    std::memcpy(copy, blob_, size_);
    copy[4] = std::byte{1};
    copy[6] = std::byte{c.byte};
    RewriteCrc(copy, size_);
    const Result<DeviceStateInfo> info =
        InspectDeviceState(ConstByteSpan(copy, size_));
    ASSERT_EQ(info.ok(), c.valid) << "format 1 algorithm byte " << +c.byte;
    if (c.valid) {
      EXPECT_EQ(info->algorithm, c.algorithm) << +c.byte;
    }
  }
}

TEST_F(DeviceStateBlobTest, InspectReportsIdentityAndShape) {
  const Result<DeviceStateInfo> info =
      InspectDeviceState(ConstByteSpan(blob_, size_));
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->job_id, 0x0123456789ABCDEFull);
  EXPECT_EQ(info->algorithm, AlgorithmKind::kLinearizedAdmm);
  EXPECT_EQ(info->primary_dim, kDim);
  EXPECT_EQ(info->secondary_dim, kDim);
  EXPECT_EQ(InspectDeviceState(ConstByteSpan(blob_, size_ - 1)).status(),
            Status::DataLoss());
}

TEST_F(DeviceStateBlobTest, OtherDimsAreInvalidArgumentAndChangeNothing) {
  target_.state.primary = Span<Real>(target_.primary, kDim - 1);
  EXPECT_EQ(Deserialize(size_), Status::InvalidArgument());
  target_.state.primary = Span<Real>(target_.primary, kDim);
  target_.state.secondary = Span<Real>();
  EXPECT_EQ(Deserialize(size_), Status::InvalidArgument());
  target_.state.secondary = Span<Real>(target_.secondary, kDim);
  EXPECT_TRUE(SameState(target_.state, snapshot_.state));
}

TEST(DeviceStateTest, SerializeChecksItsInput) {
  OwnedState source;
  FillExample(source);
  std::byte blob[kBlobBytes];
  EXPECT_EQ(SerializeDeviceState(source.state, ByteSpan(blob, kBlobBytes - 1))
                .status(),
            Status::ResourceExhausted());
  source.primary[1] = std::nan("");
  EXPECT_EQ(
      SerializeDeviceState(source.state, ByteSpan(blob, kBlobBytes)).status(),
      Status::InvalidArgument());
  source.primary[1] = INFINITY;
  EXPECT_EQ(
      SerializeDeviceState(source.state, ByteSpan(blob, kBlobBytes)).status(),
      Status::InvalidArgument());
  source.primary[1] = 0;
  source.state.algorithm = static_cast<AlgorithmKind>(9);
  EXPECT_EQ(
      SerializeDeviceState(source.state, ByteSpan(blob, kBlobBytes)).status(),
      Status::InvalidArgument());
  // A state whose algorithm was never set is refused, not stored as some
  // default algorithm.
  source.state.algorithm = DeviceState{}.algorithm;
  EXPECT_EQ(
      SerializeDeviceState(source.state, ByteSpan(blob, kBlobBytes)).status(),
      Status::InvalidArgument());
}

TEST_F(DeviceStateBlobTest, FormatIsPinned) {
  // Layout and byte order must not change silently (and must be the same on
  // the MCU): header bytes and the CRC of a fixed state.
  constexpr auto kOrders =
      static_cast<uint8_t>(DevicePrivacyLedger::kOrderCount);
  // clang-format off
  const uint8_t header[] = {
      'E', 'A', 'D', 'S', 2, 0, 2, 0,                  // magic, v2, 004, 0
      0xEF, 0xCD, 0xAB, 0x89, 0x67, 0x45, 0x23, 0x01,  // job_id
      41, 0, 0, 0, 0, 0, 0, 0,                         // last_round
      42, 0, 0, 0, 7, 0, 0, 0,                         // iteration, reseeds
      4, 0, 0, 0, 4, 0, 0, 0,                          // dims
      2, 0, 0, 0, kOrders, 0, 0, 0};                   // ledger
  // clang-format on
  for (size_t i = 0; i < sizeof(header); ++i) {
    EXPECT_EQ(static_cast<uint8_t>(blob_[i]), header[i]) << i;
  }
  uint32_t crc = 0;
  for (size_t i = 0; i < 4; ++i) {
    crc |= static_cast<uint32_t>(blob_[size_ - 4 + i]) << (8 * i);
  }
  EXPECT_EQ(crc, kGoldenCrc);
}

}  // namespace
}  // namespace edgeadmm
