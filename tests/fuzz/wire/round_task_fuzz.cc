// Fuzzes DecodeRoundTask (the device decodes every GET v1/task answer and
// Observe notification with it) and RoundTaskStreamReader (a streaming
// device decodes the same body in pieces). Invariants: neither crashes or
// reads out of bounds; an accepted task re-encodes, and
// decode(encode(task)) is a fixed point (same bytes when encoded again); a
// body the stream reader accepts (in pieces whose size the input picks)
// the decoder accepts too, with the same header and values.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "edgeadmm/wire/protocol.h"
#include "edgeadmm/wire/round_task.h"
#include "edgeadmm/wire/round_task_stream.h"
#include "fuzz_check.h"

namespace edgeadmm {
namespace {

// Keeps what the stream reader hands over.
class Collector final : public wire::RoundTaskStreamHandler {
 public:
  Status OnHeader(const edgeadmm_wire_RoundTask&) override {
    return Status::Ok();
  }
  Status OnValues(wire::TaskVector which, size_t first,
                  Span<const Real> values) override {
    std::vector<Real>& v = which == wire::TaskVector::kModel ? model : aux;
    FUZZ_CHECK(first == v.size());  // in order, no gap, no overlap
    v.insert(v.end(), values.begin(), values.end());
    return Status::Ok();
  }
  std::vector<Real> model, aux;
};

// The stream reader on `data` in pieces of 1..64 bytes (from the first
// byte); if it accepts, DecodeRoundTask's `task` must agree.
void CheckStream(const uint8_t* data, size_t size, Status decoded,
                 const wire::DecodedRoundTask& task) {
  static std::vector<std::byte> header(wire::MaxRoundTaskBytes(0));
  Real block[7];
  Collector c;
  wire::RoundTaskStreamReader reader;
  reader.Reset(ByteSpan(header.data(), header.size()), Span<Real>(block, 7),
               &c);
  const size_t piece = size == 0 ? 1 : 1 + data[0] % 64;
  Status status = Status::Ok();
  for (size_t off = 0; off < size && status.ok(); off += piece) {
    const size_t n = size - off < piece ? size - off : piece;
    status = reader.Write(
        off, ConstByteSpan(reinterpret_cast<const std::byte*>(data + off), n));
  }
  if (status.ok()) status = reader.Finish();
  if (!status.ok()) return;
  FUZZ_CHECK(decoded.ok());
  FUZZ_CHECK(reader.header().job_id == task.header.job_id &&
             reader.header().round_id == task.header.round_id &&
             reader.header().dimension == task.header.dimension);
  FUZZ_CHECK(c.model.size() == task.model.size() &&
             c.aux.size() == task.auxiliary.size());
  for (size_t i = 0; i < c.model.size(); ++i) {
    FUZZ_CHECK(c.model[i] == task.model[i]);
  }
  for (size_t i = 0; i < c.aux.size(); ++i) {
    FUZZ_CHECK(c.aux[i] == task.auxiliary[i]);
  }
}

}  // namespace

// C linkage inside the namespace: libFuzzer finds the unqualified name.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static std::vector<Real> model(wire::kMaxVectorLength);
  static std::vector<Real> aux(wire::kMaxVectorLength);
  static std::vector<uint8_t> first(
      wire::MaxRoundTaskBytes(wire::kMaxVectorLength));
  static std::vector<uint8_t> second(first.size());
  wire::DecodedRoundTask task;
  const Status status = wire::DecodeRoundTask(
      ConstByteSpan(reinterpret_cast<const std::byte*>(data), size),
      Span<Real>(model.data(), model.size()),
      Span<Real>(aux.data(), aux.size()), task);
  CheckStream(data, size, status, task);
  if (!status.ok()) {
    FUZZ_CHECK(status == Status::DataLoss() ||
               status == Status::InvalidArgument() ||
               status == Status::OutOfRange());
    return 0;
  }
  const StatusWithSize n1 = wire::EncodeRoundTask(
      task.header, task.model, task.auxiliary,
      ByteSpan(reinterpret_cast<std::byte*>(first.data()), first.size()));
  FUZZ_CHECK(n1.ok());
  FUZZ_CHECK(n1.size() <=
             wire::MaxRoundTaskBytes(task.model.size() > task.auxiliary.size()
                                         ? task.model.size()
                                         : task.auxiliary.size()));
  wire::DecodedRoundTask again;
  static std::vector<Real> model2(wire::kMaxVectorLength),
      aux2(wire::kMaxVectorLength);
  FUZZ_CHECK(wire::DecodeRoundTask(
                 ConstByteSpan(reinterpret_cast<const std::byte*>(first.data()),
                               n1.size()),
                 Span<Real>(model2.data(), model2.size()),
                 Span<Real>(aux2.data(), aux2.size()), again)
                 .ok());
  const StatusWithSize n2 = wire::EncodeRoundTask(
      again.header, again.model, again.auxiliary,
      ByteSpan(reinterpret_cast<std::byte*>(second.data()), second.size()));
  FUZZ_CHECK(n2.ok() && n2.size() == n1.size());
  for (size_t i = 0; i < n1.size(); ++i) FUZZ_CHECK(first[i] == second[i]);
  return 0;
}

}  // namespace edgeadmm
