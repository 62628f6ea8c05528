#include "edgeadmm/wire/update.h"

#include <cfloat>

#include "edgeadmm/result.h"
#include "edgeadmm/wire/protocol.h"
#include "edgeadmm/wire/vector_field.h"
#include "message.h"

namespace edgeadmm::wire {

Status ValidateUpdate(const edgeadmm_wire_Update& u, size_t vector_size) {
  if (u.version != kProtocolVersion) return Status::InvalidArgument();
  if (!internal::IsPrintableAscii(u.device_id, sizeof(u.device_id), 1,
                                  /*allow_space=*/false)) {
    return Status::InvalidArgument();
  }
  const int32_t kind = internal::EnumValue(u.kind);
  // 3 (the removed draft's predictions) stays refused.
  if ((kind < edgeadmm_wire_UpdateKind_UPDATE_KIND_DELTA_U ||
       kind > edgeadmm_wire_UpdateKind_UPDATE_KIND_MODEL) &&
      kind != edgeadmm_wire_UpdateKind_UPDATE_KIND_SHARE &&
      kind != edgeadmm_wire_UpdateKind_UPDATE_KIND_SHARE_AND_SCORES) {
    return Status::InvalidArgument();
  }
  const bool share =
      kind == edgeadmm_wire_UpdateKind_UPDATE_KIND_SHARE ||
      kind == edgeadmm_wire_UpdateKind_UPDATE_KIND_SHARE_AND_SCORES;
  if (u.dimension == 0 || u.dimension > MaxMessageDimension(share)) {
    return Status::OutOfRange();
  }
  if (vector_size != u.dimension) return Status::InvalidArgument();
  if (!u.has_ledger || !internal::InRange(u.ledger.epsilon, 0.0, DBL_MAX) ||
      !internal::InRange(u.ledger.delta, 0.0, 1.0) || u.ledger.delta >= 1.0) {
    return Status::InvalidArgument();
  }
  // The algorithm's own bytes: bounded here, read by its unit only.
  if (u.algorithm_extra.size > kMaxAlgorithmExtraBytes) {
    return Status::InvalidArgument();
  }
  const int32_t conversion = internal::EnumValue(u.ledger.conversion);
  if (conversion < edgeadmm_wire_RdpConversion_RDP_CONVERSION_CLASSIC ||
      conversion > edgeadmm_wire_RdpConversion_RDP_CONVERSION_IMPROVED) {
    return Status::InvalidArgument();
  }
  return Status::Ok();
}

StatusWithSize EncodeUpdate(const edgeadmm_wire_Update& header,
                            Span<const Real> vector, ByteSpan out) {
  edgeadmm_wire_Update message = header;
  message.version = kProtocolVersion;
  const Status valid = ValidateUpdate(message, vector.size());
  if (!valid.ok()) return StatusWithSize(valid, 0);
  return internal::EncodeWithVector(edgeadmm_wire_Update_fields, message,
                                    &edgeadmm_wire_Update::vector, vector, out);
}

StatusWithSize EncodeUpdatePrefix(const edgeadmm_wire_Update& header,
                                  size_t vector_size, ByteSpan out) {
  edgeadmm_wire_Update message = header;
  message.version = kProtocolVersion;
  const Status valid = ValidateUpdate(message, vector_size);
  if (!valid.ok()) return StatusWithSize(valid, 0);
  // The scalar fields (an empty vector writes no field) ...
  const StatusWithSize scalars = internal::EncodeWithVector(
      edgeadmm_wire_Update_fields, message, &edgeadmm_wire_Update::vector,
      Span<const Real>(), out);
  if (!scalars.ok()) return scalars;
  // ... then `bytes vector = 8`: key (8 << 3 | length-delimited) and the
  // length varint.
  size_t n = scalars.size();
  uint64_t length = 4 * static_cast<uint64_t>(vector_size);
  if (n + 1 + 10 > out.size()) {
    return StatusWithSize(Status::ResourceExhausted(), 0);
  }
  out[n++] = static_cast<std::byte>((8 << 3) | 2);
  do {
    const auto low = static_cast<uint8_t>(length & 0x7f);
    length >>= 7;
    out[n++] = static_cast<std::byte>(low | (length != 0 ? 0x80 : 0));
  } while (length != 0);
  return StatusWithSize(n);
}

Status DecodeUpdate(ConstByteSpan bytes, Span<Real> vector_buffer,
                    DecodedUpdate& out) {
  out.header = edgeadmm_wire_Update_init_zero;
  size_t count = 0;
  EDGEADMM_TRY(internal::DecodeWithVector(
      edgeadmm_wire_Update_fields, bytes, out.header,
      &edgeadmm_wire_Update::vector, vector_buffer, count));
  out.vector = vector_buffer.first(count);
  return ValidateUpdate(out.header, count);
}

}  // namespace edgeadmm::wire
