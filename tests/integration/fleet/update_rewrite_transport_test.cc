// The fleet's update-rewriting decorators (update_rewrite_transport.h):
// --share-float16 (float16_share_transport.h: the float16 rounding, ties to
// even, subnormals, saturation at ±65,504; an update's values rewritten,
// everything else forwarded) and --steering-devices (steering_transport.h:
// the longest step the gateway's rule allows, along one direction).
#include "edgeadmm/fleet/float16_share_transport.h"
#include "edgeadmm/fleet/steering_transport.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "edgeadmm/wire/protocol.h"
#include "edgeadmm/wire/update.h"

namespace edgeadmm::fleet {
namespace {

TEST(RoundToFloat16Test, NearestValueTiesToEven) {
  EXPECT_EQ(RoundToFloat16(1.0), 1.0);
  EXPECT_EQ(RoundToFloat16(1.0 / 3.0), 0.333251953125);   // 0x3555
  EXPECT_EQ(RoundToFloat16(-2.0 / 3.0), -0.66650390625);  // 0xB955
  // 1 + 2^-11 lies halfway between 1 and 1 + 2^-10: to the even, 1.
  EXPECT_EQ(RoundToFloat16(1.0 + std::ldexp(1.0, -11)), 1.0);
  // 1 + 3·2^-11 halfway between 1 + 2^-10 (odd) and 1 + 2^-9 (even).
  EXPECT_EQ(RoundToFloat16(1.0 + 3 * std::ldexp(1.0, -11)),
            1.0 + std::ldexp(1.0, -9));
  EXPECT_EQ(RoundToFloat16(1000.3), 1000.5);  // spacing 0.5 in [512, 1024)
}

TEST(RoundToFloat16Test, SubnormalsAndZero) {
  EXPECT_EQ(RoundToFloat16(0.0), 0.0);
  EXPECT_EQ(RoundToFloat16(std::ldexp(1.0, -24)), std::ldexp(1.0, -24));
  EXPECT_EQ(RoundToFloat16(std::ldexp(1.0, -25)), 0.0);  // tie: to 0 (even)
  EXPECT_EQ(RoundToFloat16(3 * std::ldexp(1.0, -25)), std::ldexp(1.0, -23));
  EXPECT_EQ(RoundToFloat16(1e-8), 0.0);
}

TEST(RoundToFloat16Test, SaturatesInsteadOfOverflowing) {
  EXPECT_EQ(RoundToFloat16(65504.0), 65504.0);
  EXPECT_EQ(RoundToFloat16(65519.0), 65504.0);  // IEEE would keep 65504
  EXPECT_EQ(RoundToFloat16(65520.0), 65504.0);  // IEEE would give inf
  EXPECT_EQ(RoundToFloat16(-1e9), -65504.0);
  EXPECT_TRUE(std::isnan(RoundToFloat16(std::nan(""))));
}

// Records the request it is given.
class RecordingTransport final : public Transport {
 public:
  Status StartRequest(const TransportRequest& request, ByteSpan) override {
    ++started;
    path = request.path;
    payload.assign(request.payload.begin(), request.payload.end());
    data = request.payload.data();
    return Status::Ok();
  }
  bool TakeResult(TransportResult&) override { return false; }
  void Cancel() override {}
  Status StartObserve(const char*, ByteSpan) override { return Status::Ok(); }
  bool TakeNotification(TransportResult&) override { return false; }
  void StopObserve() override {}
  StatusWithSize Poll(uint32_t) override { return StatusWithSize(0); }
  bool streams_bodies() const override { return streams; }

  bool streams = false;
  size_t started = 0;
  std::string path;
  std::vector<std::byte> payload;
  const std::byte* data = nullptr;
};

std::vector<std::byte> EncodeShare(const std::vector<Real>& values,
                                   uint64_t round_id = 9) {
  edgeadmm_wire_Update u = edgeadmm_wire_Update_init_zero;
  u.version = wire::kProtocolVersion;
  u.job_id = 3;
  u.round_id = round_id;
  std::strcpy(u.device_id, "dev-00001");
  u.kind = edgeadmm_wire_UpdateKind_UPDATE_KIND_SHARE;
  u.dimension = static_cast<uint32_t>(values.size());
  u.has_ledger = true;
  u.ledger.participations = 2;
  u.ledger.epsilon = 0.5;
  u.ledger.delta = 1e-5;
  u.ledger.conversion = edgeadmm_wire_RdpConversion_RDP_CONVERSION_IMPROVED;
  std::vector<std::byte> out(4 * values.size() + 256);
  const StatusWithSize n =
      wire::EncodeUpdate(u, Span<const Real>(values.data(), values.size()),
                         ByteSpan(out.data(), out.size()));
  EXPECT_TRUE(n.ok());
  out.resize(n.size());
  return out;
}

TransportRequest MakeRequest(CoapMethod method, const char* path,
                             const std::vector<std::byte>& body) {
  TransportRequest request;
  request.method = method;
  request.path = path;
  request.payload = ConstByteSpan(body.data(), body.size());
  return request;
}

TEST(Float16ShareTransportTest, RoundsTheValuesOfAnUpdate) {
  const std::vector<Real> values = {1.0 / 3.0, -70000.0, 0.1, 2.5};
  const std::vector<std::byte> body = EncodeShare(values);
  RecordingTransport inner;
  Float16ShareTransport t(inner);
  const TransportRequest request =
      MakeRequest(CoapMethod::kPost, wire::kUpdatePath, body);
  std::vector<std::byte> response(64);
  ASSERT_TRUE(
      t.StartRequest(request, ByteSpan(response.data(), response.size())).ok());
  EXPECT_EQ(t.rewritten(), 1u);
  EXPECT_EQ(inner.path, wire::kUpdatePath);
  std::vector<Real> buffer(8);
  wire::DecodedUpdate decoded;
  ASSERT_TRUE(wire::DecodeUpdate(
                  ConstByteSpan(inner.payload.data(), inner.payload.size()),
                  Span<Real>(buffer.data(), buffer.size()), decoded)
                  .ok());
  EXPECT_EQ(decoded.header.job_id, 3u);
  EXPECT_EQ(decoded.header.round_id, 9u);
  EXPECT_STREQ(decoded.header.device_id, "dev-00001");
  EXPECT_EQ(decoded.header.ledger.epsilon, 0.5);
  ASSERT_EQ(decoded.vector.size(), values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(decoded.vector[i], RoundToFloat16(values[i])) << i;
  }
  EXPECT_EQ(decoded.vector[1], -65504.0);
  EXPECT_NE(
      decoded.vector[0],
      static_cast<Real>(static_cast<float>(values[0])));  // not just float32
}

TEST(Float16ShareTransportTest, ForwardsOtherRequestsUnchanged) {
  RecordingTransport inner;
  Float16ShareTransport t(inner);
  const std::vector<std::byte> body = EncodeShare({0.1});
  const TransportRequest get =
      MakeRequest(CoapMethod::kGet, wire::kStatusPath, body);
  std::vector<std::byte> response(64);
  ASSERT_TRUE(
      t.StartRequest(get, ByteSpan(response.data(), response.size())).ok());
  EXPECT_EQ(inner.data, body.data());  // the caller's bytes, not a copy
  EXPECT_EQ(t.rewritten(), 0u);
}

// The decorator does not stream, even over a transport that does: a
// streamed update could not be rounded whole, so a body source or a
// response sink is refused and nothing reaches the inner transport.
TEST(Float16ShareTransportTest, RefusesStreamedBodies) {
  struct EmptySource final : BodySource {
    size_t size() const override { return 0; }
    Status Read(size_t, ByteSpan) override { return Status::Ok(); }
  } source;
  struct NullSink final : BodySink {
    Status Write(size_t, ConstByteSpan) override { return Status::Ok(); }
  } sink;
  RecordingTransport inner;
  inner.streams = true;
  Float16ShareTransport t(inner);
  EXPECT_FALSE(t.streams_bodies());
  std::vector<std::byte> response(64);
  const ByteSpan buffer(response.data(), response.size());
  TransportRequest upload =
      MakeRequest(CoapMethod::kPost, wire::kUpdatePath, {});
  upload.payload_source = &source;
  EXPECT_EQ(t.StartRequest(upload, buffer), Status::Unimplemented());
  TransportRequest get = MakeRequest(CoapMethod::kGet, wire::kTaskPath, {});
  get.response_sink = &sink;
  EXPECT_EQ(t.StartRequest(get, buffer), Status::Unimplemented());
  EXPECT_EQ(inner.started, 0u);
  EXPECT_EQ(t.rewritten(), 0u);
}

// The values `t` sends for an update of `values` in round `round_id`.
std::vector<Real> SentValues(SteeringTransport& t, RecordingTransport& inner,
                             const std::vector<Real>& values,
                             uint64_t round_id) {
  const std::vector<std::byte> body = EncodeShare(values, round_id);
  std::vector<std::byte> response(64);
  EXPECT_TRUE(t.StartRequest(
                   MakeRequest(CoapMethod::kPost, wire::kUpdatePath, body),
                   ByteSpan(response.data(), response.size()))
                  .ok());
  std::vector<Real> buffer(values.size() + 1);
  wire::DecodedUpdate decoded;
  EXPECT_TRUE(wire::DecodeUpdate(
                  ConstByteSpan(inner.payload.data(), inner.payload.size()),
                  Span<Real>(buffer.data(), buffer.size()), decoded)
                  .ok());
  return std::vector<Real>(decoded.vector.begin(), decoded.vector.end());
}

double Norm(const std::vector<Real>& v) {
  double sum = 0;
  for (Real x : v) sum += static_cast<double>(x) * x;
  return std::sqrt(sum);
}

// One-upload mode: 0.9999 × Norm(1, p) along (1, …, 1)/√p every round,
// whatever the device computed.
TEST(SteeringTransportTest, OneUploadModeSendsTheOneUploadBoundEveryRound) {
  const host::UploadBound bound{1.0, 0.5};  // Norm(1, 4) = 1 + 0.5·12 = 7
  RecordingTransport inner;
  SteeringTransport t(inner, bound, SteeringMode::kOneUpload);
  for (uint64_t round = 1; round <= 3; ++round) {
    const std::vector<Real> sent =
        SentValues(t, inner, {0.1, -0.2, 0.3, 0.0}, round);
    ASSERT_EQ(sent.size(), 4u);
    for (Real v : sent) EXPECT_FLOAT_EQ(v, sent[0]);
    EXPECT_NEAR(Norm(sent), 0.9999 * 7.0, 1e-5);
  }
  EXPECT_EQ(t.rewritten(), 3u);
}

// Sum mode: the k-th round's step is 0.999·(Norm(k) − Norm(k − 1)), so the
// device's sum stays just within Norm(k); a retransmission (same round id)
// repeats the step instead of counting a new round.
TEST(SteeringTransportTest, SumModeKeepsTheSumJustWithinTheBound) {
  const host::UploadBound bound{1.0, 0.5};
  RecordingTransport inner;
  SteeringTransport t(inner, bound, SteeringMode::kSum);
  double sum = 0;
  for (uint64_t round = 5; round < 9; ++round) {
    const std::vector<Real> sent = SentValues(t, inner, {1, 1, 1, 1}, round);
    const std::vector<Real> again = SentValues(t, inner, {1, 1, 1, 1}, round);
    EXPECT_EQ(sent, again);
    sum += Norm(sent);
    const int64_t k = static_cast<int64_t>(round - 4);
    EXPECT_NEAR(sum, 0.999 * bound.Norm(k, 4), 1e-5 * k);
    EXPECT_LT(sum, bound.Norm(k, 4));
  }
  // The steps shrink towards the signal bound: the noise term grows as √k.
  EXPECT_LT(t.StepLength(100, 4), 0.999 * (1.0 + 0.5 * 12 / 10));
}

}  // namespace
}  // namespace edgeadmm::fleet
