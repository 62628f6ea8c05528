// Fuzzes DecodeRoundTask (the device decodes every GET v1/task answer and
// Observe notification with it). Invariants: never crashes or reads out of
// bounds; an accepted task re-encodes, and decode(encode(task)) is a fixed
// point (same bytes when encoded again).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "edgeadmm/wire/protocol.h"
#include "edgeadmm/wire/round_task.h"
#include "fuzz_check.h"

namespace edgeadmm {

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
