#include "edgeadmm/client_record.h"

#include <cstring>

#include "edgeadmm/crc32.h"
#include "edgeadmm/device_privacy_ledger.h"
#include "gtest/gtest.h"

namespace edgeadmm {
namespace {

std::byte B(int v) { return static_cast<std::byte>(v); }

// A ledger of two earlier participations.
DevicePrivacyLedger Earlier() {
  DevicePrivacyLedger ledger;
  EXPECT_TRUE(ledger.Charge(4, 2).ok());
  EXPECT_TRUE(ledger.Charge(1, 3).ok());
  return ledger;
}

void ExpectSameLedger(const DevicePrivacyLedger& a,
                      const DevicePrivacyLedger& b) {
  EXPECT_EQ(a.participations(), b.participations());
  for (size_t i = 0; i < DevicePrivacyLedger::kOrderCount; ++i) {
    EXPECT_EQ(a.rdp()[i], b.rdp()[i]) << i;
  }
}

TEST(ClientRecordTest, RoundTripWithPendingUpload) {
  const std::byte state[5] = {B(1), B(2), B(3), B(4), B(5)};
  const std::byte upload[3] = {B(9), B(8), B(7)};
  std::byte out[ClientRecordBytes(5, 3)];
  const StatusWithSize written =
      WriteClientRecord(state, 42, 17, upload, {}, out);
  ASSERT_TRUE(written.ok());
  EXPECT_EQ(written.size(), sizeof(out));
  ClientRecordView view;
  ASSERT_TRUE(ParseClientRecord(out, view).ok());
  EXPECT_TRUE(view.has_pending);
  EXPECT_EQ(view.job_id, 42u);
  EXPECT_EQ(view.round_id, 17u);
  ASSERT_EQ(view.state.size(), 5u);
  ASSERT_EQ(view.upload.size(), 3u);
  EXPECT_EQ(std::memcmp(view.state.data(), state, 5), 0);
  EXPECT_EQ(std::memcmp(view.upload.data(), upload, 3), 0);
}

TEST(ClientRecordTest, ClearingThePendingUploadInPlaceKeepsTheState) {
  const std::byte state[4] = {B(1), B(2), B(3), B(4)};
  const std::byte upload[6] = {B(6), B(5), B(4), B(3), B(2), B(1)};
  std::byte out[ClientRecordBytes(4, 6)];
  ASSERT_TRUE(WriteClientRecord(state, 1, 2, upload, {}, out).ok());
  ClientRecordView view;
  ASSERT_TRUE(ParseClientRecord(out, view).ok());
  // The state span aliases `out`: rewritten in place without the upload.
  const StatusWithSize shrunk =
      WriteClientRecord(view.state, view.job_id, view.round_id, ConstByteSpan(),
                        view.earlier_jobs, out);
  ASSERT_TRUE(shrunk.ok());
  EXPECT_EQ(shrunk.size(), ClientRecordBytes(4, 0));
  ClientRecordView after;
  ASSERT_TRUE(ParseClientRecord(ConstByteSpan(out, shrunk.size()), after).ok());
  EXPECT_FALSE(after.has_pending);
  EXPECT_TRUE(after.upload.empty());
  EXPECT_EQ(after.job_id, 1u);
  EXPECT_EQ(after.round_id, 2u);
  EXPECT_EQ(std::memcmp(after.state.data(), state, 4), 0);
}

TEST(ClientRecordTest, EveryFlippedBitAndEveryTruncationIsDataLoss) {
  const std::byte state[4] = {B(1), B(2), B(3), B(4)};
  const std::byte upload[2] = {B(5), B(6)};
  constexpr size_t kSize = ClientRecordBytes(4, 2);
  std::byte good[kSize];
  ASSERT_TRUE(WriteClientRecord(state, 3, 4, upload, Earlier(), good).ok());
  ClientRecordView view;
  for (size_t bit = 0; bit < 8 * kSize; ++bit) {
    std::byte bad[kSize];
    std::memcpy(bad, good, kSize);
    bad[bit / 8] ^= static_cast<std::byte>(1u << (bit % 8));
    EXPECT_EQ(ParseClientRecord(bad, view), Status::DataLoss()) << bit;
  }
  for (size_t n = 0; n < kSize; ++n) {
    EXPECT_EQ(ParseClientRecord(ConstByteSpan(good, n), view),
              Status::DataLoss())
        << n;
  }
}

// The earlier jobs' ledger (lifetime budget) survives a write and a parse,
// also when the pending upload is cleared in place.
TEST(ClientRecordTest, EarlierJobsLedgerRoundTrips) {
  const std::byte state[4] = {B(1), B(2), B(3), B(4)};
  const std::byte upload[3] = {B(7), B(8), B(9)};
  std::byte out[ClientRecordBytes(4, 3)];
  ASSERT_TRUE(WriteClientRecord(state, 5, 6, upload, Earlier(), out).ok());
  ClientRecordView view;
  ASSERT_TRUE(ParseClientRecord(out, view).ok());
  ExpectSameLedger(view.earlier_jobs, Earlier());
  const StatusWithSize shrunk =
      WriteClientRecord(view.state, view.job_id, view.round_id, ConstByteSpan(),
                        view.earlier_jobs, out);
  ASSERT_TRUE(shrunk.ok());
  ClientRecordView after;
  ASSERT_TRUE(ParseClientRecord(ConstByteSpan(out, shrunk.size()), after).ok());
  ExpectSameLedger(after.earlier_jobs, Earlier());
  EXPECT_EQ(std::memcmp(after.state.data(), state, 4), 0);
}

// A format-1 record (before the lifetime budget: no earlier-jobs part)
// still loads, as a device without earlier jobs.
TEST(ClientRecordTest, FormatOneLoadsWithNoEarlierJobs) {
  const std::byte state[4] = {B(1), B(2), B(3), B(4)};
  const std::byte upload[2] = {B(5), B(6)};
  std::byte v2[ClientRecordBytes(4, 2)];
  ASSERT_TRUE(WriteClientRecord(state, 3, 4, upload, Earlier(), v2).ok());
  // Format 1 = the same header and parts without the ledger part.
  constexpr size_t kV1 = ClientRecordBytes(4, 2) - kEarlierLedgerBytes;
  std::byte v1[kV1];
  std::memcpy(v1, v2, kV1 - 4);
  v1[4] = B(1);
  v1[5] = B(0);
  const uint32_t crc = Crc32(ConstByteSpan(v1, kV1 - 4));
  for (int i = 0; i < 4; ++i) v1[kV1 - 4 + i] = B((crc >> (8 * i)) & 0xff);
  ClientRecordView view;
  ASSERT_TRUE(ParseClientRecord(v1, view).ok());
  EXPECT_EQ(view.job_id, 3u);
  EXPECT_EQ(view.upload.size(), 2u);
  EXPECT_EQ(view.earlier_jobs.participations(), 0u);
  // The same bytes announced as format 2 are too short.
  v1[4] = B(2);
  EXPECT_EQ(ParseClientRecord(v1, view), Status::DataLoss());
}

// A CRC-valid record whose earlier-jobs ledger is not a Rényi curve
// (decreasing in the order) is refused, not loaded.
TEST(ClientRecordTest, InconsistentEarlierLedgerIsDataLoss) {
  const std::byte state[4] = {B(1), B(2), B(3), B(4)};
  constexpr size_t kSize = ClientRecordBytes(4, 0);
  std::byte out[kSize];
  ASSERT_TRUE(
      WriteClientRecord(state, 1, 1, ConstByteSpan(), Earlier(), out).ok());
  // The last order's RDP (8 bytes before the CRC) set to 0.
  std::memset(out + kSize - 12, 0, 8);
  const uint32_t crc = Crc32(ConstByteSpan(out, kSize - 4));
  for (int i = 0; i < 4; ++i) out[kSize - 4 + i] = B((crc >> (8 * i)) & 0xff);
  ClientRecordView view;
  EXPECT_EQ(ParseClientRecord(out, view), Status::DataLoss());
}

TEST(ClientRecordTest, RefusesEmptyStateAndSmallBuffers) {
  const std::byte state[4] = {};
  std::byte out[ClientRecordBytes(4, 0)];
  EXPECT_EQ(WriteClientRecord(ConstByteSpan(), 1, 1, ConstByteSpan(), {}, out)
                .status(),
            Status::InvalidArgument());
  EXPECT_EQ(WriteClientRecord(state, 1, 1, ConstByteSpan(), {},
                              ByteSpan(out, sizeof(out) - 1))
                .status(),
            Status::ResourceExhausted());
  EXPECT_TRUE(WriteClientRecord(state, 1, 1, ConstByteSpan(), {}, out).ok());
}

}  // namespace
}  // namespace edgeadmm
