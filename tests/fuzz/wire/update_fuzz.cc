// Fuzzes DecodeUpdate (the aggregator decodes every POST v1/update body with
// it). Invariants as in round_task_fuzz.cc.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "edgeadmm/wire/protocol.h"
#include "edgeadmm/wire/update.h"
#include "fuzz_check.h"

namespace edgeadmm {

// C linkage inside the namespace: libFuzzer finds the unqualified name.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static std::vector<Real> vector(wire::kMaxVectorLength);
  static std::vector<uint8_t> first(
      wire::MaxUpdateBytes(wire::kMaxVectorLength));
  wire::DecodedUpdate update;
  const Status status = wire::DecodeUpdate(
      ConstByteSpan(reinterpret_cast<const std::byte*>(data), size),
      Span<Real>(vector.data(), vector.size()), update);
  if (!status.ok()) {
    FUZZ_CHECK(status == Status::DataLoss() ||
               status == Status::InvalidArgument() ||
               status == Status::OutOfRange());
    return 0;
  }
  FUZZ_CHECK(std::strlen(update.header.device_id) <= wire::kMaxDeviceIdLength);
  const StatusWithSize n = wire::EncodeUpdate(
      update.header, update.vector,
      ByteSpan(reinterpret_cast<std::byte*>(first.data()), first.size()));
  FUZZ_CHECK(n.ok() && n.size() <= wire::MaxUpdateBytes(update.vector.size()));
  static std::vector<Real> vector2(wire::kMaxVectorLength);
  wire::DecodedUpdate again;
  FUZZ_CHECK(wire::DecodeUpdate(
                 ConstByteSpan(reinterpret_cast<const std::byte*>(first.data()),
                               n.size()),
                 Span<Real>(vector2.data(), vector2.size()), again)
                 .ok());
  FUZZ_CHECK(std::strcmp(again.header.device_id, update.header.device_id) == 0);
  FUZZ_CHECK(again.vector.size() == update.vector.size());
  return 0;
}

}  // namespace edgeadmm
