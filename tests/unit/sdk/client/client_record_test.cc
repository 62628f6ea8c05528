#include "edgeadmm/client_record.h"

#include <cstring>

#include "gtest/gtest.h"

namespace edgeadmm {
namespace {

std::byte B(int v) { return static_cast<std::byte>(v); }

TEST(ClientRecordTest, RoundTripWithPendingUpload) {
  const std::byte state[5] = {B(1), B(2), B(3), B(4), B(5)};
  const std::byte upload[3] = {B(9), B(8), B(7)};
  std::byte out[ClientRecordBytes(5, 3)];
  const StatusWithSize written = WriteClientRecord(state, 42, 17, upload, out);
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
  ASSERT_TRUE(WriteClientRecord(state, 1, 2, upload, out).ok());
  ClientRecordView view;
  ASSERT_TRUE(ParseClientRecord(out, view).ok());
  // The state span aliases `out`: rewritten in place without the upload.
  const StatusWithSize shrunk = WriteClientRecord(
      view.state, view.job_id, view.round_id, ConstByteSpan(), out);
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
  ASSERT_TRUE(WriteClientRecord(state, 3, 4, upload, good).ok());
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

TEST(ClientRecordTest, RefusesEmptyStateAndSmallBuffers) {
  const std::byte state[4] = {};
  std::byte out[ClientRecordBytes(4, 0)];
  EXPECT_EQ(
      WriteClientRecord(ConstByteSpan(), 1, 1, ConstByteSpan(), out).status(),
      Status::InvalidArgument());
  EXPECT_EQ(WriteClientRecord(state, 1, 1, ConstByteSpan(),
                              ByteSpan(out, sizeof(out) - 1))
                .status(),
            Status::ResourceExhausted());
  EXPECT_TRUE(WriteClientRecord(state, 1, 1, ConstByteSpan(), out).ok());
}

}  // namespace
}  // namespace edgeadmm
