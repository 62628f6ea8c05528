#include "edgeadmm/wire/status_body.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "wire_test_support.h"

namespace edgeadmm::wire {
namespace {

using testing::AsBytes;
using testing::AsConstBytes;
using testing::EncodeRaw;

TEST(StatusBodyTest, RoundTrips) {
  edgeadmm_wire_StatusBody body =
      MakeStatusBody(Status::FailedPrecondition(), "round 41 is closed", 7, 41);
  body.duplicate = true;
  std::vector<uint8_t> bytes(kMaxStatusBodyBytes);
  const StatusWithSize n = EncodeStatusBody(body, AsBytes(bytes));
  ASSERT_TRUE(n.ok());
  bytes.resize(n.size());
  edgeadmm_wire_StatusBody out;
  ASSERT_EQ(DecodeStatusBody(AsConstBytes(bytes), out), Status::Ok());
  EXPECT_EQ(StatusFromBody(out), Status::FailedPrecondition());
  EXPECT_STREQ(out.message, "round 41 is closed");
  EXPECT_EQ(out.job_id, 7u);
  EXPECT_EQ(out.round_id, 41u);
  EXPECT_TRUE(out.duplicate);
}

TEST(StatusBodyTest, LongestBodyFitsTheBound) {
  const std::string long_message(500, 'x');
  edgeadmm_wire_StatusBody body = MakeStatusBody(
      Status::Unauthenticated(), long_message.c_str(), ~0ull, ~0ull);
  EXPECT_EQ(std::string(body.message).size(), kMaxStatusMessageLength);
  body.duplicate = true;
  std::vector<uint8_t> bytes(kMaxStatusBodyBytes);
  EXPECT_TRUE(EncodeStatusBody(body, AsBytes(bytes)).ok());
}

TEST(StatusBodyTest, InvalidBodiesAreRefused) {
  edgeadmm_wire_StatusBody out;
  edgeadmm_wire_StatusBody body = MakeStatusBody(Status::Ok(), "ok", 1, 2);
  body.code = 17;
  EXPECT_EQ(
      DecodeStatusBody(
          AsConstBytes(EncodeRaw(edgeadmm_wire_StatusBody_fields, body)), out),
      Status::InvalidArgument());
  body = MakeStatusBody(Status::Ok(), "ok", 1, 2);
  body.version = 0;
  EXPECT_EQ(
      DecodeStatusBody(
          AsConstBytes(EncodeRaw(edgeadmm_wire_StatusBody_fields, body)), out),
      Status::InvalidArgument());
  body = MakeStatusBody(Status::Ok(), "tab\there", 1, 2);
  EXPECT_EQ(
      DecodeStatusBody(
          AsConstBytes(EncodeRaw(edgeadmm_wire_StatusBody_fields, body)), out),
      Status::InvalidArgument());
  // A message longer than its 96-character bound: field 3 with 120 bytes.
  std::vector<uint8_t> raw = {0x08, 0x01, 0x1a, 120};
  raw.insert(raw.end(), 120, 'm');
  EXPECT_EQ(DecodeStatusBody(AsConstBytes(raw), out), Status::DataLoss());
  // Truncated inside the message string.
  const std::vector<uint8_t> cut(raw.begin(), raw.begin() + 30);
  EXPECT_EQ(DecodeStatusBody(AsConstBytes(cut), out), Status::DataLoss());
}

}  // namespace
}  // namespace edgeadmm::wire
