#include <cfloat>

#include "edgeadmm/wire/protocol.h"
#include "edgeadmm/wire/released_model.h"
#include "edgeadmm/wire/vector_field.h"
#include "wire_message.h"

namespace edgeadmm::wire {

Status ValidateReleasedModel(const edgeadmm_wire_ReleasedModel& m,
                             size_t vector_size) {
  if (m.version != kProtocolVersion) return Status::InvalidArgument();
  if (m.dimension == 0 || m.dimension > kMaxDimension) {
    return Status::OutOfRange();
  }
  if (vector_size != m.dimension) return Status::InvalidArgument();
  if (!internal::InRange(m.epsilon, 0.0, DBL_MAX) ||
      !internal::InRange(m.delta, 0.0, 1.0) || m.delta >= 1.0) {
    return Status::InvalidArgument();
  }
  return Status::Ok();
}

StatusWithSize EncodeReleasedModel(const edgeadmm_wire_ReleasedModel& header,
                                   Span<const Real> vector, ByteSpan out) {
  edgeadmm_wire_ReleasedModel model = header;
  model.version = kProtocolVersion;
  const Status valid = ValidateReleasedModel(model, vector.size());
  if (!valid.ok()) return StatusWithSize(valid, 0);
  VectorEncodeContext context{vector, Status::Ok()};
  BindVectorEncode(model.vector, context);
  return internal::EncodeMessage(edgeadmm_wire_ReleasedModel_fields, &model,
                                 out, &context, nullptr);
}

Status DecodeReleasedModel(ConstByteSpan bytes, Span<Real> vector_buffer,
                           DecodedReleasedModel& out) {
  out.header = edgeadmm_wire_ReleasedModel_init_zero;
  VectorDecodeContext context;
  context.buffer = vector_buffer;
  BindVectorDecode(out.header.vector, context);
  const Status decoded =
      internal::DecodeMessage(edgeadmm_wire_ReleasedModel_fields, &out.header,
                              bytes, &context, nullptr);
  out.header.vector = pb_callback_t{};
  if (!decoded.ok()) return decoded;
  out.vector = vector_buffer.first(context.count);
  return ValidateReleasedModel(out.header, context.count);
}

}  // namespace edgeadmm::wire
