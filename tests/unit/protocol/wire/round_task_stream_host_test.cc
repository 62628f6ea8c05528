// RoundTaskStreamReader (wire/round_task_stream.h): a task decoded from
// pieces, as a streaming device receives it over Block2, must give exactly
// what DecodeRoundTask gives for the whole body, whatever the piece and
// block sizes, and refuse what it refuses (plus a scalar field after a
// vector, which a streaming device could not honour).
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "edgeadmm/wire/round_task.h"
#include "edgeadmm/wire/round_task_stream.h"
#include "wire_test_support.h"

namespace edgeadmm::wire {
namespace {

using testing::AsConstBytes;
using testing::AsSpan;
using testing::FederatedTask;
using testing::Ramp;
using testing::SharingTask;
using testing::WithSecureAggregation;

std::vector<uint8_t> Encode(const edgeadmm_wire_RoundTask& task,
                            const std::vector<Real>& model,
                            const std::vector<Real>& aux) {
  std::vector<uint8_t> out(
      MaxRoundTaskBytes(model.size() > aux.size() ? model.size() : aux.size()));
  const StatusWithSize n =
      EncodeRoundTask(task, AsSpan(model), AsSpan(aux), testing::AsBytes(out));
  EXPECT_TRUE(n.ok());
  out.resize(n.size());
  return out;
}

// Collects what the reader hands over, checking the order of the blocks.
class Collector final : public RoundTaskStreamHandler {
 public:
  Status OnHeader(const edgeadmm_wire_RoundTask& h) override {
    ++headers;
    round_id = h.round_id;
    return header_status;
  }
  Status OnValues(TaskVector which, size_t first,
                  Span<const Real> values) override {
    std::vector<Real>& v = which == TaskVector::kModel ? model : aux;
    EXPECT_EQ(first, v.size());  // in order, no gap, no overlap
    EXPECT_EQ(headers, 1);       // never before the header
    largest_block =
        values.size() > largest_block ? values.size() : largest_block;
    v.insert(v.end(), values.begin(), values.end());
    return Status::Ok();
  }
  int headers = 0;
  uint64_t round_id = 0;
  Status header_status;
  std::vector<Real> model, aux;
  size_t largest_block = 0;
};

struct Fed {
  Status write;
  Status finish;
};

// Feeds `bytes` in pieces of `piece` bytes with blocks of `block` values.
Fed Feed(const std::vector<uint8_t>& bytes, size_t piece, size_t block,
         Collector& c, size_t header_bytes = 256) {
  std::vector<std::byte> header(header_bytes);
  std::vector<Real> values(block);
  RoundTaskStreamReader reader;
  reader.Reset(ByteSpan(header.data(), header.size()),
               Span<Real>(values.data(), values.size()), &c);
  Fed run;
  for (size_t off = 0; off < bytes.size() && run.write.ok(); off += piece) {
    const size_t n = bytes.size() - off < piece ? bytes.size() - off : piece;
    run.write = reader.Write(
        off, ConstByteSpan(reinterpret_cast<const std::byte*>(&bytes[off]), n));
  }
  run.finish = reader.Finish();
  return run;
}

TEST(RoundTaskStreamTest, PiecesAndBlocksGiveTheWholeDecode) {
  const uint32_t n = 300;
  const std::vector<Real> u = Ramp(n), y = Ramp(n, 0.25);
  const std::vector<uint8_t> bytes = Encode(SharingTask(n), u, y);
  for (size_t piece :
       {size_t{1}, size_t{3}, size_t{64}, size_t{1024}, bytes.size()}) {
    for (size_t block : {size_t{1}, size_t{7}, size_t{64}, size_t{1000}}) {
      SCOPED_TRACE(::testing::Message() << piece << " " << block);
      Collector c;
      const Fed run = Feed(bytes, piece, block, c);
      ASSERT_EQ(run.write, Status::Ok());
      ASSERT_EQ(run.finish, Status::Ok());
      EXPECT_EQ(c.headers, 1);
      EXPECT_EQ(c.round_id, 42u);
      EXPECT_EQ(c.model, u);
      EXPECT_EQ(c.aux, y);
      EXPECT_LE(c.largest_block, block);
    }
  }
}

TEST(RoundTaskStreamTest, EveryAlgorithmStreamsWithItsParamsWhereverTheyAre) {
  // Field-number order: prox-admm's params (10) come before the vectors,
  // admm-sharing's (19) after them; both decode.
  for (const edgeadmm_wire_RoundTask& t :
       {FederatedTask(40), SharingTask(40)}) {
    Collector c;
    const std::vector<Real> aux =
        t.algorithm == edgeadmm_wire_Algorithm_ALGORITHM_SHARING
            ? Ramp(40)
            : std::vector<Real>();
    const Fed run = Feed(Encode(t, Ramp(40), aux), 5, 8, c);
    EXPECT_EQ(run.write, Status::Ok());
    EXPECT_EQ(run.finish, Status::Ok());
    EXPECT_EQ(c.model.size(), 40u);
    EXPECT_EQ(c.aux.size(), aux.size());
  }
  // An idle task has no vector: its header is handed over at Finish.
  edgeadmm_wire_RoundTask idle = SharingTask(40);
  idle.role = edgeadmm_wire_Role_ROLE_IDLE;
  Collector c;
  const Fed run = Feed(Encode(idle, {}, {}), 2, 8, c);
  EXPECT_EQ(run.finish, Status::Ok());
  EXPECT_EQ(c.headers, 1);
}

// RoundTask.secure_aggregation (20) comes after the vectors and after
// admm-sharing's params (19): the reader keeps it with the header, in
// pieces of any size, and refuses a seed of 31 bytes as the decoder does.
TEST(RoundTaskStreamTest, SecureAggregationPlanFollowsTheVectors) {
  for (const edgeadmm_wire_RoundTask& t :
       {WithSecureAggregation(FederatedTask(40)),
        WithSecureAggregation(SharingTask(40))}) {
    const std::vector<Real> aux =
        t.algorithm == edgeadmm_wire_Algorithm_ALGORITHM_SHARING
            ? Ramp(40)
            : std::vector<Real>();
    const std::vector<uint8_t> bytes = Encode(t, Ramp(40), aux);
    for (size_t piece : {size_t{1}, size_t{7}, bytes.size()}) {
      Collector c;
      std::vector<std::byte> header(MaxRoundTaskBytes(0));
      std::vector<Real> values(8);
      RoundTaskStreamReader reader;
      reader.Reset(ByteSpan(header.data(), header.size()),
                   Span<Real>(values.data(), values.size()), &c);
      for (size_t off = 0; off < bytes.size(); off += piece) {
        const size_t n =
            bytes.size() - off < piece ? bytes.size() - off : piece;
        ASSERT_EQ(
            reader.Write(
                off, ConstByteSpan(
                         reinterpret_cast<const std::byte*>(&bytes[off]), n)),
            Status::Ok());
      }
      ASSERT_EQ(reader.Finish(), Status::Ok());
      ASSERT_TRUE(reader.header().has_secure_aggregation);
      const auto& got = reader.header().secure_aggregation;
      EXPECT_EQ(got.bits, t.secure_aggregation.bits);
      EXPECT_EQ(got.gamma, t.secure_aggregation.gamma);
      EXPECT_EQ(got.sigma2_num, t.secure_aggregation.sigma2_num);
      EXPECT_EQ(got.sigma2_den, t.secure_aggregation.sigma2_den);
      EXPECT_EQ(got.beta, t.secure_aggregation.beta);
      EXPECT_EQ(got.clip, t.secure_aggregation.clip);
      EXPECT_EQ(std::memcmp(got.rotation_seed,
                            t.secure_aggregation.rotation_seed, 32),
                0);
      EXPECT_EQ(c.model.size(), 40u);
    }
  }
  std::vector<uint8_t> bad = Encode(FederatedTask(40), Ramp(40), {});
  for (uint8_t b : {0xa2, 0x01, 33, 0x3a, 31}) bad.push_back(b);
  for (int i = 0; i < 31; ++i) bad.push_back(static_cast<uint8_t>(i + 1));
  Collector c;
  const Fed run = Feed(bad, 3, 8, c);
  EXPECT_EQ(run.write, Status::Ok());
  EXPECT_EQ(run.finish, Status::DataLoss());
}

// Where the auxiliary vector's values start in an encoded sharing task of
// n records (field 17: key 0x8a 0x01, then the length varint 4n < 128).
size_t AuxValuesAt(const std::vector<uint8_t>& bytes, uint32_t n) {
  for (size_t i = 0; i + 3 <= bytes.size(); ++i) {
    if (bytes[i] == 0x8a && bytes[i + 1] == 0x01 && bytes[i + 2] == 4 * n) {
      return i + 3;
    }
  }
  ADD_FAILURE() << "no auxiliary field";
  return 0;
}

TEST(RoundTaskStreamTest, RefusesWhatTheDecoderRefuses) {
  const uint32_t n = 16;
  const std::vector<uint8_t> good = Encode(SharingTask(n), Ramp(n), Ramp(n));
  const size_t aux_at = AuxValuesAt(good, n);
  const size_t aux_end = aux_at + 4 * n;
  ASSERT_LT(aux_end, good.size());  // the params (19) follow the vectors
  auto run = [](std::vector<uint8_t> bytes) {
    Collector c;
    const Fed r = Feed(bytes, 3, 4, c);
    return r.write.ok() ? r.finish : r.write;
  };
  auto whole = [](const std::vector<uint8_t>& bytes) {
    DecodedRoundTask out;
    std::vector<Real> m(64), a(64);
    return DecodeRoundTask(AsConstBytes(bytes), AsSpan(m), AsSpan(a), out);
  };
  EXPECT_EQ(run(good), Status::Ok());
  // Truncated inside a vector; or after the vectors, without the params.
  EXPECT_EQ(run({good.begin(), good.begin() + aux_end - 1}),
            Status::DataLoss());
  EXPECT_EQ(run({good.begin(), good.begin() + aux_end}),
            Status::InvalidArgument());
  // A NaN value (the last of y).
  std::vector<uint8_t> nan = good;
  nan[aux_end - 2] = 0xc0;
  nan[aux_end - 1] = 0x7f;
  EXPECT_EQ(run(nan), Status::InvalidArgument());
  // The auxiliary vector repeated.
  std::vector<uint8_t> repeated = good;
  repeated.insert(repeated.begin() + aux_end, good.begin() + aux_at - 3,
                  good.begin() + aux_end);
  EXPECT_EQ(whole(repeated), Status::InvalidArgument());
  EXPECT_EQ(run(repeated), Status::InvalidArgument());
  // round_id (3) repeated after the vectors: the decoder takes the last
  // value (protobuf); the stream already acted on the first: refused.
  std::vector<uint8_t> late = good;
  late.push_back(3 << 3);
  late.push_back(5);
  EXPECT_EQ(whole(late), Status::Ok());
  EXPECT_EQ(run(late), Status::InvalidArgument());
  // A late field nothing acted on (deadline_ms, 14) is taken by both.
  std::vector<uint8_t> deadline = good;
  deadline.push_back(14 << 3);
  deadline.push_back(5);
  EXPECT_EQ(whole(deadline), Status::Ok());
  EXPECT_EQ(run(deadline), Status::Ok());
  // The params variant is checked at Finish (admm-sharing's params come
  // after the vectors): the values were streamed, the task is refused all
  // the same. (Their values are the adapter's to check: the client does it
  // right after Finish, tests/unit/sdk/steps/task_params_test.cc.)
  edgeadmm_wire_RoundTask bad = SharingTask(n);
  bad.which_params = edgeadmm_wire_RoundTask_dp_sgd_tag;
  bad.params.dp_sgd = {0.5, 1, 1.0, 0.8};
  Collector c;
  edgeadmm_wire_RoundTask raw = bad;
  std::vector<uint8_t> model_bytes =
      testing::Float32Bytes(std::vector<float>(n, 0.5f));
  std::vector<uint8_t> aux_bytes = model_bytes;
  testing::BindRaw(raw.model, model_bytes);
  testing::BindRaw(raw.auxiliary, aux_bytes);
  const std::vector<uint8_t> invalid =
      testing::EncodeRaw(edgeadmm_wire_RoundTask_fields, raw);
  const Fed streamed = Feed(invalid, 7, 4, c);
  EXPECT_EQ(streamed.write, Status::Ok());
  EXPECT_EQ(c.model.size(), n);
  EXPECT_EQ(streamed.finish, Status::InvalidArgument());
  EXPECT_EQ(whole(invalid), Status::InvalidArgument());
  // A model one value short of the task's dimension.
  edgeadmm_wire_RoundTask t = SharingTask(n);
  std::vector<uint8_t> short_model =
      testing::Float32Bytes(std::vector<float>(n - 1, 0.5f));
  testing::BindRaw(t.model, short_model);
  testing::BindRaw(t.auxiliary, aux_bytes);
  EXPECT_EQ(run(testing::EncodeRaw(edgeadmm_wire_RoundTask_fields, t)),
            Status::InvalidArgument());
  // An empty body: no version.
  EXPECT_EQ(run({}), Status::InvalidArgument());
  // A vector field that is not length-delimited (field 16 as fixed32:
  // nanopb would hand its 4 bytes to the vector callback as one value).
  std::vector<uint8_t> fixed = good;
  fixed.insert(fixed.end(), {0x85, 0x01, 0, 0, 0x80, 0x3f});
  EXPECT_EQ(run(fixed), Status::DataLoss());
}

TEST(RoundTaskStreamTest, AHandlerStopsTheStreamAndOffsetZeroRestartsIt) {
  const uint32_t n = 64;
  const std::vector<uint8_t> bytes = Encode(SharingTask(n), Ramp(n), Ramp(n));
  Collector stop;
  stop.header_status = Status::Cancelled();
  const Fed stopped = Feed(bytes, 16, 8, stop);
  EXPECT_EQ(stopped.write, Status::Cancelled());
  EXPECT_TRUE(stop.model.empty());

  // Half the body, then the body again from offset 0 (an ETag change): the
  // values are handed over once, from the restart.
  std::vector<std::byte> header(256);
  std::vector<Real> block(8);
  Collector c;
  RoundTaskStreamReader reader;
  reader.Reset(ByteSpan(header.data(), header.size()),
               Span<Real>(block.data(), block.size()), &c);
  const auto* p = reinterpret_cast<const std::byte*>(bytes.data());
  ASSERT_EQ(reader.Write(0, ConstByteSpan(p, bytes.size() / 2)), Status::Ok());
  c = Collector{};
  ASSERT_EQ(reader.Write(0, ConstByteSpan(p, bytes.size())), Status::Ok());
  EXPECT_EQ(reader.Finish(), Status::Ok());
  EXPECT_EQ(c.model, Ramp(n));
  // Out of order: refused.
  EXPECT_EQ(reader.Write(5, ConstByteSpan(p, 1)), Status::DataLoss());

  // A header larger than the header buffer.
  Collector small;
  EXPECT_EQ(Feed(bytes, 16, 8, small, /*header_bytes=*/20).write,
            Status::ResourceExhausted());
}

}  // namespace
}  // namespace edgeadmm::wire
