#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "edgeadmm/wire/round_task.h"
#include "wire_test_support.h"

namespace edgeadmm::wire {
namespace {

using testing::AsBytes;
using testing::AsConstBytes;
using testing::AsSpan;
using testing::BindRaw;
using testing::DpAdmmTask;
using testing::DpSgdTask;
using testing::EncodeRaw;
using testing::FederatedTask;
using testing::Float32Bytes;
using testing::PenaltyTask;
using testing::Ramp;
using testing::ScoringTask;
using testing::SharingTask;
using testing::WithSecureAggregation;

std::vector<uint8_t> Encode(const edgeadmm_wire_RoundTask& task,
                            const std::vector<Real>& model,
                            const std::vector<Real>& aux = {}) {
  std::vector<uint8_t> out(
      MaxRoundTaskBytes(model.size() > aux.size() ? model.size() : aux.size()));
  const StatusWithSize r =
      EncodeRoundTask(task, AsSpan(model), AsSpan(aux), AsBytes(out));
  EXPECT_TRUE(r.ok()) << r.status().str();
  out.resize(r.size());
  return out;
}

Status Decode(const std::vector<uint8_t>& bytes, size_t capacity = 8192) {
  std::vector<Real> model(capacity), aux(capacity);
  DecodedRoundTask out;
  return DecodeRoundTask(AsConstBytes(bytes), AsSpan(model), AsSpan(aux), out);
}

// Decodes `bytes` and checks every field against `task` and the vectors.
void ExpectRoundTrip(const edgeadmm_wire_RoundTask& task,
                     const std::vector<Real>& model,
                     const std::vector<Real>& aux) {
  const std::vector<uint8_t> bytes = Encode(task, model, aux);
  EXPECT_LE(
      bytes.size(),
      MaxRoundTaskBytes(model.size() > aux.size() ? model.size() : aux.size()));
  std::vector<Real> model_out(model.size() + 5, -1.0), aux_out(8192, -1.0);
  DecodedRoundTask out;
  ASSERT_EQ(DecodeRoundTask(AsConstBytes(bytes), AsSpan(model_out),
                            AsSpan(aux_out), out),
            Status::Ok());
  EXPECT_EQ(out.header.version, kProtocolVersion);
  EXPECT_EQ(out.header.job_id, task.job_id);
  EXPECT_EQ(out.header.round_id, task.round_id);
  EXPECT_EQ(out.header.role, task.role);
  EXPECT_EQ(out.header.algorithm, task.algorithm);
  EXPECT_EQ(out.header.loss, task.loss);
  EXPECT_EQ(out.header.regularizer, task.regularizer);
  EXPECT_EQ(out.header.regularizer_weight, task.regularizer_weight);
  EXPECT_EQ(out.header.noise_placement, task.noise_placement);
  EXPECT_EQ(out.header.which_params, task.which_params);
  // Every parameter survived: re-encoding the decoded task gives the bytes.
  std::vector<Real> model_back(out.model.begin(), out.model.end());
  std::vector<Real> aux_back(out.auxiliary.begin(), out.auxiliary.end());
  EXPECT_EQ(Encode(out.header, model_back, aux_back), bytes);
  EXPECT_EQ(out.header.dimension, task.dimension);
  EXPECT_EQ(out.header.deadline_ms, task.deadline_ms);
  ASSERT_EQ(out.model.size(), model.size());
  ASSERT_EQ(out.auxiliary.size(), aux.size());
  for (size_t i = 0; i < model.size(); ++i) EXPECT_EQ(out.model[i], model[i]);
  for (size_t i = 0; i < aux.size(); ++i) EXPECT_EQ(out.auxiliary[i], aux[i]);
  EXPECT_EQ(model_out[model.size()], -1.0);  // nothing past the vector
}

TEST(RoundTaskTest, RoundTripsEveryAlgorithmAtBothSizes) {
  for (uint32_t p : {123u, 5000u}) {
    SCOPED_TRACE(p);
    const std::vector<Real> model = Ramp(p);
    ExpectRoundTrip(FederatedTask(p), model, {});
    ExpectRoundTrip(DpAdmmTask(p), model, {});
    ExpectRoundTrip(DpSgdTask(p), model, {});
    ExpectRoundTrip(PenaltyTask(p), model, {});
    ExpectRoundTrip(SharingTask(p), model, Ramp(p));  // u_m and y
  }
}

TEST(RoundTaskTest, SharingParamsAndVectorsAreCheckedOnce) {
  std::vector<uint8_t> out(4096);
  const std::vector<Real> v = Ramp(4);
  const auto status = [&](edgeadmm_wire_RoundTask t, size_t aux) {
    return EncodeRoundTask(t, AsSpan(v), Span<const Real>(v.data(), aux),
                           AsBytes(out))
        .status();
  };
  EXPECT_EQ(status(SharingTask(4), 4), Status::Ok());
  EXPECT_EQ(status(SharingTask(4), 0), Status::InvalidArgument());  // no y
  EXPECT_EQ(status(SharingTask(4), 3), Status::InvalidArgument());  // short y
  // The params' values are admm-sharing's own: its adapter checks them
  // (tests/unit/sdk/steps/task_params_test.cc); the codec passes them on.
  edgeadmm_wire_RoundTask t = SharingTask(4);
  t.params.sharing_params.records = 5;
  EXPECT_EQ(status(t, 4), Status::Ok());
  // A non-finite y is refused at decode like a non-finite model.
  std::vector<Real> y = Ramp(4);
  y[2] = std::numeric_limits<Real>::quiet_NaN();
  EXPECT_NE(EncodeRoundTask(SharingTask(4), AsSpan(v), AsSpan(y), AsBytes(out))
                .status(),
            Status::Ok());
}

TEST(RoundTaskTest, SharingScoringPhaseRoundTrips) {
  // The decoder reads back every score field (their ranges: the adapter's,
  // tests/unit/sdk/steps/task_params_test.cc).
  const std::vector<Real> v = Ramp(4);
  ExpectRoundTrip(ScoringTask(4), v, v);
}

TEST(RoundTaskTest, IdleAndDoneTasksNeedNoModel) {
  edgeadmm_wire_RoundTask idle = edgeadmm_wire_RoundTask_init_zero;
  idle.job_id = 7;
  idle.round_id = 43;
  idle.role = edgeadmm_wire_Role_ROLE_IDLE;
  ExpectRoundTrip(idle, {}, {});
  idle.role = edgeadmm_wire_Role_ROLE_DONE;
  ExpectRoundTrip(idle, {}, {});
}

TEST(RoundTaskTest, NoiseInStateFlagRoundTrips) {
  const std::vector<Real> model = Ramp(5);
  for (bool flag : {false, true}) {
    SCOPED_TRACE(flag);
    edgeadmm_wire_RoundTask t = FederatedTask(5);
    t.params.federated.noise_in_state = flag;
    const std::vector<uint8_t> bytes = Encode(t, model);
    std::vector<Real> model_out(5), aux_out(1);
    DecodedRoundTask out;
    ASSERT_EQ(DecodeRoundTask(AsConstBytes(bytes), AsSpan(model_out),
                              AsSpan(aux_out), out),
              Status::Ok());
    ASSERT_EQ(out.header.which_params, edgeadmm_wire_RoundTask_federated_tag);
    EXPECT_EQ(out.header.params.federated.noise_in_state, flag);
    EXPECT_EQ(out.header.params.federated.sigma, t.params.federated.sigma);
  }
}

TEST(RoundTaskTest, FloatRoundingIsToNearest) {
  const std::vector<Real> model = {0.1, -1e-3, 3.0e38, 1e-45};
  const std::vector<uint8_t> bytes = Encode(FederatedTask(4), model);
  std::vector<Real> out(4);
  std::vector<Real> aux(1);
  DecodedRoundTask task;
  ASSERT_EQ(
      DecodeRoundTask(AsConstBytes(bytes), AsSpan(out), AsSpan(aux), task),
      Status::Ok());
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(out[i], static_cast<double>(static_cast<float>(model[i])));
  }
}

TEST(RoundTaskTest, EveryStrictPrefixIsRefused) {
  for (const auto& [task, aux] :
       {std::pair{FederatedTask(123), std::vector<Real>{}},
        std::pair{PenaltyTask(123), std::vector<Real>{}}}) {
    const std::vector<uint8_t> bytes = Encode(task, Ramp(123), aux);
    ASSERT_GT(bytes.size(), 4 * 123u);
    for (size_t n = 0; n < bytes.size(); ++n) {
      const std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + n);
      const Status s = Decode(prefix);
      EXPECT_FALSE(s.ok()) << "prefix " << n;
      EXPECT_TRUE(s == Status::DataLoss() || s == Status::InvalidArgument() ||
                  s == Status::OutOfRange())
          << s.str();
    }
  }
}

TEST(RoundTaskTest, TruncatedInsideVectorIsDataLoss) {
  const std::vector<uint8_t> bytes = Encode(FederatedTask(123), Ramp(123));
  const std::vector<uint8_t> cut(bytes.begin(), bytes.end() - 5);
  EXPECT_EQ(Decode(cut), Status::DataLoss());
}

TEST(RoundTaskTest, WrongVersionIsInvalidArgument) {
  std::vector<uint8_t> model = Float32Bytes(std::vector<float>(4, 1.0f));
  for (uint32_t version : {0u, 2u, 1000u}) {
    edgeadmm_wire_RoundTask t = FederatedTask(4);
    t.version = version;
    BindRaw(t.model, model);
    EXPECT_EQ(Decode(EncodeRaw(edgeadmm_wire_RoundTask_fields, t)),
              Status::InvalidArgument())
        << version;
  }
}

TEST(RoundTaskTest, NonFiniteModelValuesAreInvalidArgument) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  for (float bad : {nan, inf, -inf}) {
    std::vector<uint8_t> model = Float32Bytes({1.0f, 2.0f, bad, 4.0f});
    edgeadmm_wire_RoundTask t = FederatedTask(4);
    BindRaw(t.model, model);
    EXPECT_EQ(Decode(EncodeRaw(edgeadmm_wire_RoundTask_fields, t)),
              Status::InvalidArgument());
  }
}

TEST(RoundTaskTest, NonFiniteParameterIsInvalidArgument) {
  std::vector<uint8_t> model = Float32Bytes(std::vector<float>(4, 1.0f));
  edgeadmm_wire_RoundTask t = FederatedTask(4);
  t.regularizer_weight = std::numeric_limits<double>::quiet_NaN();
  BindRaw(t.model, model);
  EXPECT_EQ(Decode(EncodeRaw(edgeadmm_wire_RoundTask_fields, t)),
            Status::InvalidArgument());
  // A params value out of its algorithm's range (lambda outside (0, 1]) is
  // the adapter's to refuse (tests/unit/sdk/steps/task_params_test.cc).
  t = FederatedTask(4);
  t.params.federated.lambda = 1.5;
  BindRaw(t.model, model);
  EXPECT_EQ(Decode(EncodeRaw(edgeadmm_wire_RoundTask_fields, t)), Status::Ok());
}

TEST(RoundTaskTest, OversizedModelIsOutOfRange) {
  const std::vector<uint8_t> bytes = Encode(FederatedTask(123), Ramp(123));
  EXPECT_EQ(Decode(bytes, /*capacity=*/122), Status::OutOfRange());
  EXPECT_EQ(Decode(bytes, /*capacity=*/123), Status::Ok());
  // More coordinates than any device accepts, even with a large buffer.
  std::vector<uint8_t> huge(4 * (kMaxDimension + 1), 0);
  edgeadmm_wire_RoundTask t = FederatedTask(kMaxDimension + 1);
  BindRaw(t.model, huge);
  EXPECT_EQ(
      Decode(EncodeRaw(edgeadmm_wire_RoundTask_fields, t), kMaxDimension + 1),
      Status::OutOfRange());
}

// admm-sharing's record-space bound (EDGEADMM_CFG_MAX_RECORD_DIMENSION,
// 65536 on Linux): a task of N = kMaxRecordDimension decodes, N + 1 is
// refused before a value is read, even into buffers that would hold it; a
// model task above kMaxDimension stays refused.
TEST(RoundTaskTest, SharingTaskAtTheRecordBoundDecodesAndOneMoreIsRefused) {
  const auto decode = [](size_t n) {
    std::vector<uint8_t> raw(4 * n, 0);
    edgeadmm_wire_RoundTask t = SharingTask(static_cast<uint32_t>(n));
    BindRaw(t.model, raw);
    BindRaw(t.auxiliary, raw);
    std::vector<Real> model(n), aux(n);
    DecodedRoundTask out;
    return DecodeRoundTask(
        AsConstBytes(EncodeRaw(edgeadmm_wire_RoundTask_fields, t)),
        AsSpan(model), AsSpan(aux), out);
  };
  EXPECT_EQ(decode(kMaxRecordDimension), Status::Ok());
  EXPECT_EQ(decode(kMaxRecordDimension + 1), Status::OutOfRange());
#if defined(__linux__)
  EXPECT_EQ(kMaxRecordDimension, 65536u);  // holds the full a9a (32,561)
  // The same length as a prox-ADMM model is beyond kMaxDimension.
  std::vector<uint8_t> raw(4 * (kMaxDimension + 1), 0);
  edgeadmm_wire_RoundTask t = FederatedTask(kMaxDimension + 1);
  BindRaw(t.model, raw);
  std::vector<Real> model(kMaxDimension + 1);
  DecodedRoundTask out;
  EXPECT_EQ(DecodeRoundTask(
                AsConstBytes(EncodeRaw(edgeadmm_wire_RoundTask_fields, t)),
                AsSpan(model), Span<Real>(), out),
            Status::OutOfRange());
#endif
}

TEST(RoundTaskTest, VectorLengthNotMultipleOfFourIsDataLoss) {
  std::vector<uint8_t> model(4 * 4 + 2, 0);
  edgeadmm_wire_RoundTask t = FederatedTask(4);
  BindRaw(t.model, model);
  EXPECT_EQ(Decode(EncodeRaw(edgeadmm_wire_RoundTask_fields, t)),
            Status::DataLoss());
}

TEST(RoundTaskTest, DimensionMismatchIsInvalidArgument) {
  std::vector<uint8_t> model = Float32Bytes(std::vector<float>(4, 1.0f));
  edgeadmm_wire_RoundTask t = FederatedTask(5);
  BindRaw(t.model, model);
  EXPECT_EQ(Decode(EncodeRaw(edgeadmm_wire_RoundTask_fields, t)),
            Status::InvalidArgument());
}

TEST(RoundTaskTest, EnumsOutOfRangeAreInvalidArgument) {
  std::vector<uint8_t> model = Float32Bytes(std::vector<float>(4, 1.0f));
  auto with = [&](auto mutate) {
    edgeadmm_wire_RoundTask t = FederatedTask(4);
    mutate(t);
    BindRaw(t.model, model);
    return Decode(EncodeRaw(edgeadmm_wire_RoundTask_fields, t));
  };
  EXPECT_EQ(with([](auto& t) { testing::SetEnum(t.role, 9); }),
            Status::InvalidArgument());
  EXPECT_EQ(with([](auto& t) { testing::SetEnum(t.role, 0); }),
            Status::InvalidArgument());
  EXPECT_EQ(with([](auto& t) { testing::SetEnum(t.algorithm, 6); }),
            Status::InvalidArgument());
  // 4 was ALGORITHM_ADMM_SHARING (reserved since its removal).
  EXPECT_EQ(with([](auto& t) { testing::SetEnum(t.algorithm, 4); }),
            Status::InvalidArgument());
  EXPECT_EQ(with([](auto& t) { testing::SetEnum(t.loss, 3); }),
            Status::InvalidArgument());
  EXPECT_EQ(with([](auto& t) { testing::SetEnum(t.regularizer, -1); }),
            Status::InvalidArgument());
  EXPECT_EQ(with([](auto& t) { testing::SetEnum(t.noise_placement, 0); }),
            Status::InvalidArgument());
  // Params of another algorithm.
  EXPECT_EQ(with([](auto& t) {
              t.algorithm = edgeadmm_wire_Algorithm_ALGORITHM_DP_ADMM;
            }),
            Status::InvalidArgument());
  EXPECT_EQ(with([](auto&) {}), Status::Ok());
}

TEST(RoundTaskTest, ParamsOfAnotherAlgorithmAreInvalidArgument) {
  std::vector<uint8_t> out(4096);
  const std::vector<Real> model = Ramp(4);
  const auto refused = [&](edgeadmm_wire_RoundTask t) {
    return EncodeRoundTask(t, AsSpan(model), {}, AsBytes(out)).status();
  };
  edgeadmm_wire_RoundTask t = DpSgdTask(4);
  t.which_params = edgeadmm_wire_RoundTask_federated_tag;
  EXPECT_EQ(refused(t), Status::InvalidArgument());
  t = DpAdmmTask(4);
  t.which_params = edgeadmm_wire_RoundTask_dp_sgd_tag;
  EXPECT_EQ(refused(t), Status::InvalidArgument());
  EXPECT_EQ(refused(DpSgdTask(4)), Status::Ok());
  EXPECT_EQ(refused(DpAdmmTask(4)), Status::Ok());
}

TEST(RoundTaskTest, RepeatedVectorFieldIsInvalidArgument) {
  const std::vector<uint8_t> once = Encode(FederatedTask(4), Ramp(4));
  // The model is the last field: append a second copy of it.
  const size_t field_bytes = 2 + 1 + 16;
  std::vector<uint8_t> twice = once;
  twice.insert(twice.end(), once.end() - field_bytes, once.end());
  EXPECT_EQ(Decode(twice), Status::InvalidArgument());
}

TEST(RoundTaskTest, GarbageIsDataLoss) {
  EXPECT_EQ(Decode(std::vector<uint8_t>(64, 0xff)), Status::DataLoss());
  EXPECT_EQ(Decode(std::vector<uint8_t>{0x0a, 0x80}), Status::DataLoss());
}

TEST(RoundTaskTest, EncoderRefusesWhatDecoderWould) {
  std::vector<uint8_t> out(4096);
  std::vector<Real> model = Ramp(4);
  model[2] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(EncodeRoundTask(FederatedTask(4), AsSpan(model), {}, AsBytes(out))
                .status(),
            Status::InvalidArgument());
  model[2] = 1e39;  // beyond float32
  EXPECT_EQ(EncodeRoundTask(FederatedTask(4), AsSpan(model), {}, AsBytes(out))
                .status(),
            Status::OutOfRange());
  model[2] = 0.0;
  EXPECT_EQ(EncodeRoundTask(FederatedTask(5), AsSpan(model), {}, AsBytes(out))
                .status(),
            Status::InvalidArgument());
  std::vector<uint8_t> small(20);
  EXPECT_EQ(EncodeRoundTask(FederatedTask(4), AsSpan(model), {}, AsBytes(small))
                .status(),
            Status::ResourceExhausted());
}

TEST(RoundTaskTest, AnUploadSpreadAboveAMinuteIsInvalidArgument) {
  // The device would otherwise wait as long as a gateway says (days).
  edgeadmm_wire_RoundTask t = FederatedTask(4);
  t.upload_spread_ms = kMaxUploadSpreadMs;
  ExpectRoundTrip(t, Ramp(4), {});
  std::vector<uint8_t> bytes = Encode(t, Ramp(4));
  DecodedRoundTask out;
  std::vector<Real> model(4), aux(4);
  ASSERT_EQ(
      DecodeRoundTask(AsConstBytes(bytes), AsSpan(model), AsSpan(aux), out),
      Status::Ok());
  EXPECT_EQ(out.header.upload_spread_ms, kMaxUploadSpreadMs);
  t.upload_spread_ms = kMaxUploadSpreadMs + 1;
  std::vector<uint8_t> buffer(MaxRoundTaskBytes(4));
  const std::vector<Real> ramp = Ramp(4);
  EXPECT_EQ(EncodeRoundTask(t, AsSpan(ramp), {}, AsBytes(buffer)).status(),
            Status::InvalidArgument());
}

TEST(RoundTaskTest, LargestScalarsFitTheBound) {
  edgeadmm_wire_RoundTask t = DpAdmmTask(3);
  t.job_id = t.round_id = ~uint64_t{0};
  t.deadline_ms = t.heartbeat_ms = ~uint32_t{0};
  t.upload_spread_ms = kMaxUploadSpreadMs;
  t.params.dp_admm.num_devices = t.params.dp_admm.iteration = ~uint32_t{0};
  t.params.dp_admm.max_records = ~uint32_t{0};
  t.params.dp_admm.noiseless = true;
  EXPECT_LE(Encode(t, Ramp(3)).size(), MaxRoundTaskBytes(3));
  // With a secure-aggregation plan at its largest (the wire does not check
  // its values; the device does, sdk/src/steps/secure_aggregation_task.cc).
  t = WithSecureAggregation(t);
  t.secure_aggregation.bits = ~uint32_t{0};
  t.secure_aggregation.sigma2_num = ~uint64_t{0};
  t.secure_aggregation.sigma2_den = ~uint64_t{0};
  const std::vector<uint8_t> bytes = Encode(t, Ramp(3));
  EXPECT_LE(bytes.size(), MaxRoundTaskBytes(3));
  // And admm-sharing's params, the largest variant, with it, every field
  // at its longest (dimension and records at the record bound).
  const uint32_t n = static_cast<uint32_t>(kMaxRecordDimension);
  edgeadmm_wire_RoundTask s = WithSecureAggregation(SharingTask(n));
  s.job_id = s.round_id = ~uint64_t{0};
  s.deadline_ms = s.heartbeat_ms = ~uint32_t{0};
  s.upload_spread_ms = kMaxUploadSpreadMs;
  s.noise_placement = edgeadmm_wire_NoisePlacement_NOISE_PLACEMENT_AGGREGATOR;
  s.secure_aggregation = t.secure_aggregation;
  auto& q = s.params.sharing_params;
  q.parties = q.party = q.first_column = q.columns = ~uint32_t{0};
  q.iteration = q.rounds = q.noise = q.score_records = q.score_noise =
      ~uint32_t{0};
  q.score_sigma = q.score_sensitivity = 1;
  const std::vector<Real> v = Ramp(n);
  std::vector<uint8_t> out(MaxRoundTaskBytes(n) + 512);
  const StatusWithSize largest =
      EncodeRoundTask(s, AsSpan(v), AsSpan(v), AsBytes(out));
  ASSERT_TRUE(largest.ok());
  EXPECT_LE(largest.size(), MaxRoundTaskBytes(n));
  // The scalars: the two vector fields are 2 + 3 + 4n bytes each here.
  EXPECT_EQ(largest.size() - 2 * (5 + 4 * size_t{n}), 273u);
}

// RoundTask.secure_aggregation (field 20) is decoded and re-encoded whole,
// after field 19 (admm-sharing's params) too; a seed of another length
// than 32 bytes is not a valid encoding.
TEST(RoundTaskTest, SecureAggregationPlanRoundTrips) {
  for (const edgeadmm_wire_RoundTask& t :
       {WithSecureAggregation(DpAdmmTask(5)),
        WithSecureAggregation(SharingTask(5))}) {
    const bool two = t.algorithm == edgeadmm_wire_Algorithm_ALGORITHM_SHARING;
    const std::vector<Real> aux = two ? Ramp(5) : std::vector<Real>();
    ExpectRoundTrip(t, Ramp(5), aux);
    const std::vector<uint8_t> bytes = Encode(t, Ramp(5), aux);
    std::vector<Real> model(5), aux_out(5);
    DecodedRoundTask out;
    ASSERT_EQ(DecodeRoundTask(AsConstBytes(bytes), AsSpan(model),
                              AsSpan(aux_out), out),
              Status::Ok());
    ASSERT_TRUE(out.header.has_secure_aggregation);
    const auto& got = out.header.secure_aggregation;
    const auto& want = t.secure_aggregation;
    EXPECT_EQ(got.bits, want.bits);
    EXPECT_EQ(got.gamma, want.gamma);
    EXPECT_EQ(got.sigma2_num, want.sigma2_num);
    EXPECT_EQ(got.sigma2_den, want.sigma2_den);
    EXPECT_EQ(got.beta, want.beta);
    EXPECT_EQ(got.clip, want.clip);
    for (size_t i = 0; i < 32; ++i) {
      EXPECT_EQ(got.rotation_seed[i], want.rotation_seed[i]);
    }
    // The plan is the last field: its 34-byte seed ends the body.
    ASSERT_GT(bytes.size(), 34u);
    EXPECT_EQ(bytes[bytes.size() - 34], 0x3a);  // field 7, length-delimited
    EXPECT_EQ(bytes[bytes.size() - 33], 32);
    EXPECT_EQ(bytes[bytes.size() - 1], want.rotation_seed[31]);
  }
  // The same task without the plan does not carry one.
  std::vector<Real> model(5);
  DecodedRoundTask out;
  const std::vector<uint8_t> plain = Encode(DpAdmmTask(5), Ramp(5));
  ASSERT_EQ(DecodeRoundTask(AsConstBytes(plain), AsSpan(model), {}, out),
            Status::Ok());
  EXPECT_FALSE(out.header.has_secure_aggregation);
  // Field 20 with a 31-byte seed: 0xa2 0x01 (key), length 33, then field 7
  // (0x3a) of 31 bytes.
  std::vector<uint8_t> bad = plain;
  for (uint8_t b : {0xa2, 0x01, 33, 0x3a, 31}) bad.push_back(b);
  for (int i = 0; i < 31; ++i) bad.push_back(static_cast<uint8_t>(i + 1));
  EXPECT_EQ(Decode(bad), Status::DataLoss());
  // With 32 bytes the same hand encoding decodes (the check is the length).
  std::vector<uint8_t> good = plain;
  for (uint8_t b : {0xa2, 0x01, 34, 0x3a, 32}) good.push_back(b);
  for (int i = 0; i < 32; ++i) good.push_back(static_cast<uint8_t>(i + 1));
  EXPECT_EQ(Decode(good), Status::Ok());
}

}  // namespace
}  // namespace edgeadmm::wire
