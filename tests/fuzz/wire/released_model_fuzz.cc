// Fuzzes DecodeReleasedModel (the device decodes GET v1/model answers).
// Invariants as in round_task_fuzz.cc.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "edgeadmm/wire/protocol.h"
#include "edgeadmm/wire/released_model.h"
#include "fuzz_check.h"

namespace edgeadmm {

// C linkage inside the namespace: libFuzzer finds the unqualified name.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static std::vector<Real> vector(wire::kMaxVectorLength);
  static std::vector<uint8_t> first(
      wire::MaxReleasedModelBytes(wire::kMaxVectorLength));
  wire::DecodedReleasedModel model;
  const Status status = wire::DecodeReleasedModel(
      ConstByteSpan(reinterpret_cast<const std::byte*>(data), size),
      Span<Real>(vector.data(), vector.size()), model);
  if (!status.ok()) {
    FUZZ_CHECK(status == Status::DataLoss() ||
               status == Status::InvalidArgument() ||
               status == Status::OutOfRange());
    return 0;
  }
  FUZZ_CHECK(model.vector.size() == model.header.dimension);
  const StatusWithSize n = wire::EncodeReleasedModel(
      model.header, model.vector,
      ByteSpan(reinterpret_cast<std::byte*>(first.data()), first.size()));
  FUZZ_CHECK(n.ok() &&
             n.size() <= wire::MaxReleasedModelBytes(model.vector.size()));
  static std::vector<Real> vector2(wire::kMaxVectorLength);
  wire::DecodedReleasedModel again;
  FUZZ_CHECK(wire::DecodeReleasedModel(
                 ConstByteSpan(reinterpret_cast<const std::byte*>(first.data()),
                               n.size()),
                 Span<Real>(vector2.data(), vector2.size()), again)
                 .ok());
  FUZZ_CHECK(again.vector.size() == model.vector.size());
  for (size_t i = 0; i < model.vector.size(); ++i) {
    FUZZ_CHECK(again.vector[i] == model.vector[i]);
  }
  return 0;
}

}  // namespace edgeadmm
