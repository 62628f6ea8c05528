// Fuzzes DecodeStatusBody (the device decodes every error body and upload
// receipt with it). An accepted body re-encodes within kMaxStatusBodyBytes.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "edgeadmm/wire/protocol.h"
#include "edgeadmm/wire/status_body.h"
#include "fuzz_check.h"

namespace edgeadmm {

// C linkage inside the namespace: libFuzzer finds the unqualified name.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  edgeadmm_wire_StatusBody body;
  const Status status = wire::DecodeStatusBody(
      ConstByteSpan(reinterpret_cast<const std::byte*>(data), size), body);
  if (!status.ok()) {
    FUZZ_CHECK(status == Status::DataLoss() ||
               status == Status::InvalidArgument());
    return 0;
  }
  FUZZ_CHECK(std::strlen(body.message) <= wire::kMaxStatusMessageLength);
  std::byte out[wire::kMaxStatusBodyBytes];
  const StatusWithSize n =
      wire::EncodeStatusBody(body, ByteSpan(out, sizeof(out)));
  FUZZ_CHECK(n.ok());
  edgeadmm_wire_StatusBody again;
  FUZZ_CHECK(wire::DecodeStatusBody(ConstByteSpan(out, n.size()), again).ok());
  FUZZ_CHECK(again.code == body.code && again.job_id == body.job_id &&
             again.round_id == body.round_id &&
             again.duplicate == body.duplicate &&
             std::strcmp(again.message, body.message) == 0);
  return 0;
}

}  // namespace edgeadmm
