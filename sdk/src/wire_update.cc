#include <cfloat>

#include "edgeadmm/wire/protocol.h"
#include "edgeadmm/wire/update.h"
#include "edgeadmm/wire/vector_field.h"
#include "wire_message.h"

namespace edgeadmm::wire {

Status ValidateUpdate(const edgeadmm_wire_Update& u, size_t vector_size) {
  if (u.version != kProtocolVersion) return Status::InvalidArgument();
  if (!internal::IsPrintableAscii(u.device_id, sizeof(u.device_id), 1,
                                  /*allow_space=*/false)) {
    return Status::InvalidArgument();
  }
  const int32_t kind = internal::EnumValue(u.kind);
  if (kind < edgeadmm_wire_UpdateKind_UPDATE_KIND_DELTA_U ||
      kind > edgeadmm_wire_UpdateKind_UPDATE_KIND_PREDICTIONS) {
    return Status::InvalidArgument();
  }
  if (u.dimension == 0 || u.dimension > kMaxDimension) {
    return Status::OutOfRange();
  }
  if (vector_size != u.dimension) return Status::InvalidArgument();
  if (!u.has_ledger || !internal::InRange(u.ledger.epsilon, 0.0, DBL_MAX) ||
      !internal::InRange(u.ledger.delta, 0.0, 1.0) || u.ledger.delta >= 1.0) {
    return Status::InvalidArgument();
  }
  return Status::Ok();
}

StatusWithSize EncodeUpdate(const edgeadmm_wire_Update& header,
                            Span<const Real> vector, ByteSpan out) {
  edgeadmm_wire_Update update = header;
  update.version = kProtocolVersion;
  const Status valid = ValidateUpdate(update, vector.size());
  if (!valid.ok()) return StatusWithSize(valid, 0);
  VectorEncodeContext context{vector, Status::Ok()};
  BindVectorEncode(update.vector, context);
  return internal::EncodeMessage(edgeadmm_wire_Update_fields, &update, out,
                                 &context, nullptr);
}

Status DecodeUpdate(ConstByteSpan bytes, Span<Real> vector_buffer,
                    DecodedUpdate& out) {
  out.header = edgeadmm_wire_Update_init_zero;
  VectorDecodeContext context;
  context.buffer = vector_buffer;
  BindVectorDecode(out.header.vector, context);
  const Status decoded = internal::DecodeMessage(
      edgeadmm_wire_Update_fields, &out.header, bytes, &context, nullptr);
  out.header.vector = pb_callback_t{};
  if (!decoded.ok()) return decoded;
  out.vector = vector_buffer.first(context.count);
  return ValidateUpdate(out.header, context.count);
}

}  // namespace edgeadmm::wire
