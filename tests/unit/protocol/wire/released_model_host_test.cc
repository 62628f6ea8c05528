#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "edgeadmm/wire/released_model.h"
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
using testing::SampleModel;

TEST(ReleasedModelTest, RoundTripsAndRefusesPrefixes) {
  for (uint32_t p : {123u, 5000u}) {
    const std::vector<Real> v = Ramp(p, 1.5);
    std::vector<uint8_t> bytes(MaxReleasedModelBytes(p));
    const StatusWithSize n =
        EncodeReleasedModel(SampleModel(p), AsSpan(v), AsBytes(bytes));
    ASSERT_TRUE(n.ok());
    bytes.resize(n.size());
    std::vector<Real> buffer(p);
    DecodedReleasedModel out;
    ASSERT_EQ(DecodeReleasedModel(AsConstBytes(bytes), AsSpan(buffer), out),
              Status::Ok());
    EXPECT_EQ(out.header.round_id, 41u);
    EXPECT_EQ(out.header.participants, 120u);
    EXPECT_EQ(out.header.epsilon, 1.25);
    EXPECT_EQ(out.header.delta, 1e-5);
    ASSERT_EQ(out.vector.size(), p);
    for (size_t i = 0; i < p; ++i) ASSERT_EQ(out.vector[i], v[i]);
    if (p == 123) {
      for (size_t k = 0; k < bytes.size(); ++k) {
        const std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + k);
        EXPECT_FALSE(
            DecodeReleasedModel(AsConstBytes(prefix), AsSpan(buffer), out).ok())
            << k;
      }
    }
  }
}

// An admm-sharing job's released (v, y) is 2N long: the longest vector field
// (kMaxVectorLength = 2·kMaxRecordDimension on Linux) decodes, one more is
// refused before a value is read.
TEST(ReleasedModelTest, LongestVectorDecodesAndOneMoreIsRefused) {
  const auto decode = [](size_t n) {
    std::vector<uint8_t> raw(4 * n, 0);
    edgeadmm_wire_ReleasedModel m = SampleModel(static_cast<uint32_t>(n));
    BindRaw(m.vector, raw);
    std::vector<Real> buffer(n);
    DecodedReleasedModel out;
    return DecodeReleasedModel(
        AsConstBytes(EncodeRaw(edgeadmm_wire_ReleasedModel_fields, m)),
        AsSpan(buffer), out);
  };
  EXPECT_EQ(decode(kMaxVectorLength), Status::Ok());
  EXPECT_EQ(decode(kMaxVectorLength + 1), Status::OutOfRange());
  EXPECT_GE(kMaxVectorLength, 2 * kMaxRecordDimension);
}

TEST(ReleasedModelTest, InvalidFieldsAreRefused) {
  std::vector<uint8_t> vec = Float32Bytes({1.0f, 2.0f});
  auto with = [&](auto mutate, size_t capacity = 2) {
    edgeadmm_wire_ReleasedModel m = SampleModel(2);
    mutate(m);
    BindRaw(m.vector, vec);
    std::vector<Real> buffer(capacity);
    DecodedReleasedModel out;
    return DecodeReleasedModel(
        AsConstBytes(EncodeRaw(edgeadmm_wire_ReleasedModel_fields, m)),
        AsSpan(buffer), out);
  };
  EXPECT_EQ(with([](auto&) {}), Status::Ok());
  EXPECT_EQ(with([](auto&) {}, 1), Status::OutOfRange());
  EXPECT_EQ(with([](auto& m) { m.version = 3; }), Status::InvalidArgument());
  EXPECT_EQ(with([](auto& m) { m.epsilon = -0.5; }), Status::InvalidArgument());
  EXPECT_EQ(
      with([](auto& m) { m.delta = std::numeric_limits<double>::quiet_NaN(); }),
      Status::InvalidArgument());
  EXPECT_EQ(with([](auto& m) { m.dimension = 3; }), Status::InvalidArgument());
  // The labels of epsilon are required and must be listed values.
  for (const int32_t policy : {0, 6, -1}) {
    EXPECT_EQ(
        with([&](auto& m) { std::memcpy(&m.policy, &policy, sizeof(policy)); }),
        Status::InvalidArgument())
        << policy;
  }
  for (const int32_t conversion : {0, 4}) {
    EXPECT_EQ(with([&](auto& m) {
                std::memcpy(&m.conversion, &conversion, sizeof(conversion));
              }),
              Status::InvalidArgument())
        << conversion;
  }
  // A job's central ε from the PLD accountant is a listed value.
  EXPECT_EQ(with([](auto& m) {
              m.conversion = edgeadmm_wire_RdpConversion_RDP_CONVERSION_PLD;
            }),
            Status::Ok());
  vec = Float32Bytes({1.0f, std::numeric_limits<float>::infinity()});
  EXPECT_EQ(with([](auto&) {}), Status::InvalidArgument());
}

}  // namespace
}  // namespace edgeadmm::wire
