#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "edgeadmm/wire/update.h"
#include "wire_test_support.h"

namespace edgeadmm::wire {
namespace {

using testing::AsBytes;
using testing::AsConstBytes;
using testing::AsSpan;
using testing::BindRaw;
using testing::EncodeRaw;
using testing::Float32Bytes;
using testing::Ramp;
using testing::SampleUpdate;

std::vector<uint8_t> Encode(const edgeadmm_wire_Update& u,
                            const std::vector<Real>& v) {
  std::vector<uint8_t> out(MaxUpdateBytes(v.size()));
  const StatusWithSize r = EncodeUpdate(u, AsSpan(v), AsBytes(out));
  EXPECT_TRUE(r.ok()) << r.status().str();
  out.resize(r.size());
  return out;
}

Status Decode(const std::vector<uint8_t>& bytes, size_t capacity = 8192) {
  std::vector<Real> v(capacity);
  DecodedUpdate out;
  return DecodeUpdate(AsConstBytes(bytes), AsSpan(v), out);
}

TEST(UpdateTest, RoundTripsAtBothSizes) {
  for (uint32_t p : {123u, 5000u}) {
    const std::vector<Real> v = Ramp(p, -0.25);
    const std::vector<uint8_t> bytes = Encode(SampleUpdate(p), v);
    EXPECT_LE(bytes.size(), MaxUpdateBytes(p));
    std::vector<Real> buffer(p);
    DecodedUpdate out;
    ASSERT_EQ(DecodeUpdate(AsConstBytes(bytes), AsSpan(buffer), out),
              Status::Ok());
    EXPECT_EQ(out.header.job_id, 7u);
    EXPECT_EQ(out.header.round_id, 42u);
    EXPECT_STREQ(out.header.device_id, "device-0001");
    EXPECT_EQ(out.header.kind, edgeadmm_wire_UpdateKind_UPDATE_KIND_DELTA_U);
    EXPECT_EQ(out.header.dimension, p);
    EXPECT_TRUE(out.header.has_ledger);
    EXPECT_EQ(out.header.ledger.participations, 3u);
    EXPECT_EQ(out.header.ledger.epsilon, 0.75);
    EXPECT_EQ(out.header.ledger.delta, 1e-6);
    EXPECT_EQ(out.header.ledger.conversion,
              edgeadmm_wire_RdpConversion_RDP_CONVERSION_IMPROVED);
    ASSERT_EQ(out.vector.size(), p);
    for (size_t i = 0; i < p; ++i) ASSERT_EQ(out.vector[i], v[i]) << i;
  }
}

TEST(UpdateTest, EncodingIsDeterministic) {
  // The reboot-resend guarantee needs byte-identical re-encodings.
  const std::vector<Real> v = Ramp(123);
  EXPECT_EQ(Encode(SampleUpdate(123), v), Encode(SampleUpdate(123), v));
}

TEST(UpdateTest, EveryStrictPrefixIsRefused) {
  const std::vector<uint8_t> bytes = Encode(SampleUpdate(123), Ramp(123));
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_FALSE(
        Decode(std::vector<uint8_t>(bytes.begin(), bytes.begin() + n)).ok())
        << n;
  }
}

TEST(UpdateTest, InvalidFieldsAreRefused) {
  std::vector<uint8_t> vec = Float32Bytes({1.0f, 2.0f, 3.0f});
  auto with = [&](auto mutate) {
    edgeadmm_wire_Update u = SampleUpdate(3);
    mutate(u);
    BindRaw(u.vector, vec);
    return Decode(EncodeRaw(edgeadmm_wire_Update_fields, u));
  };
  EXPECT_EQ(with([](auto&) {}), Status::Ok());
  EXPECT_EQ(with([](auto& u) { u.version = 2; }), Status::InvalidArgument());
  EXPECT_EQ(with([](auto& u) { u.device_id[0] = '\0'; }),
            Status::InvalidArgument());
  EXPECT_EQ(with([](auto& u) { std::strcpy(u.device_id, "dev 1"); }),
            Status::InvalidArgument());
  EXPECT_EQ(with([](auto& u) { u.device_id[2] = '\x7f'; }),
            Status::InvalidArgument());
  // 3 (the removed predictions) and 6 (unknown) are refused; 4 is SHARE,
  // 5 SHARE_AND_SCORES (admm-sharing's scoring phase).
  EXPECT_EQ(with([](auto& u) { testing::SetEnum(u.kind, 3); }),
            Status::InvalidArgument());
  EXPECT_EQ(with([](auto& u) { testing::SetEnum(u.kind, 6); }),
            Status::InvalidArgument());
  EXPECT_EQ(with([](auto& u) { testing::SetEnum(u.kind, 4); }), Status::Ok());
  EXPECT_EQ(with([](auto& u) { testing::SetEnum(u.kind, 5); }), Status::Ok());
  EXPECT_EQ(with([](auto& u) { u.dimension = 4; }), Status::InvalidArgument());
  EXPECT_EQ(with([](auto& u) { u.dimension = 0; }), Status::OutOfRange());
  EXPECT_EQ(with([](auto& u) { u.has_ledger = false; }),
            Status::InvalidArgument());
  EXPECT_EQ(with([](auto& u) {
              u.ledger.conversion =
                  edgeadmm_wire_RdpConversion_RDP_CONVERSION_UNSPECIFIED;
            }),
            Status::InvalidArgument());
  EXPECT_EQ(with([](auto& u) { u.ledger.epsilon = -1.0; }),
            Status::InvalidArgument());
  EXPECT_EQ(with([](auto& u) {
              u.ledger.epsilon = std::numeric_limits<double>::infinity();
            }),
            Status::InvalidArgument());
  EXPECT_EQ(with([](auto& u) { u.ledger.delta = 1.0; }),
            Status::InvalidArgument());
}

TEST(UpdateTest, NanVectorIsInvalidArgument) {
  std::vector<uint8_t> vec =
      Float32Bytes({1.0f, std::numeric_limits<float>::quiet_NaN(), 3.0f});
  edgeadmm_wire_Update u = SampleUpdate(3);
  BindRaw(u.vector, vec);
  EXPECT_EQ(Decode(EncodeRaw(edgeadmm_wire_Update_fields, u)),
            Status::InvalidArgument());
}

TEST(UpdateTest, OversizedIsRefused) {
  const std::vector<uint8_t> bytes = Encode(SampleUpdate(123), Ramp(123));
  EXPECT_EQ(Decode(bytes, 100), Status::OutOfRange());
  // A device id longer than 64 characters overflows its bound at decode.
  std::vector<uint8_t> vec = Float32Bytes({1.0f});
  edgeadmm_wire_Update u = SampleUpdate(1);
  BindRaw(u.vector, vec);
  std::vector<uint8_t> raw = EncodeRaw(edgeadmm_wire_Update_fields, u);
  // Rewrite field 4 (tag 0x22) with a 100-character id.
  std::vector<uint8_t> patched;
  for (size_t i = 0; i < raw.size();) {
    if (raw[i] == 0x22) {
      const size_t length = raw[i + 1];
      patched.push_back(0x22);
      patched.push_back(100);
      patched.insert(patched.end(), 100, 'a');
      i += 2 + length;
    } else {
      patched.push_back(raw[i]);
      ++i;
    }
  }
  EXPECT_EQ(Decode(patched), Status::DataLoss());
}

// A share of N = kMaxRecordDimension values decodes; N + 1 is refused, and
// a DELTA_U update above kMaxDimension stays refused.
TEST(UpdateTest, ShareAtTheRecordBoundDecodesAndOneMoreIsRefused) {
  const auto decode = [](size_t n, edgeadmm_wire_UpdateKind kind) {
    std::vector<uint8_t> raw(4 * n, 0);
    edgeadmm_wire_Update u = SampleUpdate(static_cast<uint32_t>(n));
    u.kind = kind;
    BindRaw(u.vector, raw);
    return Decode(EncodeRaw(edgeadmm_wire_Update_fields, u), n);
  };
  const auto share = edgeadmm_wire_UpdateKind_UPDATE_KIND_SHARE;
  EXPECT_EQ(decode(kMaxRecordDimension, share), Status::Ok());
  EXPECT_EQ(decode(kMaxRecordDimension + 1, share), Status::OutOfRange());
  EXPECT_EQ(
      decode(kMaxDimension + 1, edgeadmm_wire_UpdateKind_UPDATE_KIND_DELTA_U),
      Status::OutOfRange());
}

// algorithm_extra: an algorithm's own bytes, carried as they are (the
// wire does not read them) up to kMaxAlgorithmExtraBytes; a longer one
// does not decode.
TEST(UpdateTest, AlgorithmExtraRoundTripsUpToItsBound) {
  const std::vector<Real> v = Ramp(3);
  edgeadmm_wire_Update u = SampleUpdate(3);
  for (size_t i = 0; i < kMaxAlgorithmExtraBytes; ++i) {
    u.algorithm_extra.bytes[i] = static_cast<uint8_t>(0xff - i);
  }
  u.algorithm_extra.size = kMaxAlgorithmExtraBytes;
  const std::vector<uint8_t> bytes = Encode(u, v);
  EXPECT_LE(bytes.size(), MaxUpdateBytes(3));
  std::vector<Real> buffer(3);
  DecodedUpdate out;
  ASSERT_EQ(DecodeUpdate(AsConstBytes(bytes), AsSpan(buffer), out),
            Status::Ok());
  ASSERT_EQ(out.header.algorithm_extra.size, kMaxAlgorithmExtraBytes);
  for (size_t i = 0; i < kMaxAlgorithmExtraBytes; ++i) {
    EXPECT_EQ(out.header.algorithm_extra.bytes[i], 0xff - i) << i;
  }
  // Field 10 with one byte more than the bound.
  std::vector<uint8_t> longer = Encode(SampleUpdate(3), v);
  longer.push_back((10 << 3) | 2);
  longer.push_back(static_cast<uint8_t>(kMaxAlgorithmExtraBytes + 1));
  longer.insert(longer.end(), kMaxAlgorithmExtraBytes + 1, 0);
  EXPECT_NE(Decode(longer), Status::Ok());
  u.algorithm_extra.size = kMaxAlgorithmExtraBytes + 1;
  std::vector<uint8_t> scratch(1024);
  EXPECT_EQ(EncodeUpdate(u, AsSpan(v), AsBytes(scratch)).status(),
            Status::InvalidArgument());
}

TEST(UpdateTest, EncoderRefusesInvalidInput) {
  std::vector<uint8_t> out(1024);
  std::vector<Real> v = Ramp(3);
  edgeadmm_wire_Update u = SampleUpdate(3);
  std::strcpy(u.device_id, "has space");
  EXPECT_EQ(EncodeUpdate(u, AsSpan(v), AsBytes(out)).status(),
            Status::InvalidArgument());
  v[1] = -std::numeric_limits<double>::infinity();
  EXPECT_EQ(EncodeUpdate(SampleUpdate(3), AsSpan(v), AsBytes(out)).status(),
            Status::InvalidArgument());
}

}  // namespace
}  // namespace edgeadmm::wire
