#include "edgeadmm/wire/released_model.h"

#include <cfloat>

#include "edgeadmm/result.h"
#include "edgeadmm/wire/protocol.h"
#include "edgeadmm/wire/vector_field.h"
#include "message.h"

namespace edgeadmm::wire {

Status ValidateReleasedModel(const edgeadmm_wire_ReleasedModel& m,
                             size_t vector_size) {
  if (m.version != kProtocolVersion) return Status::InvalidArgument();
  if (m.dimension == 0 || m.dimension > kMaxVectorLength) {
    return Status::OutOfRange();
  }
  if (vector_size != m.dimension) return Status::InvalidArgument();
  if (!internal::InRange(m.epsilon, 0.0, DBL_MAX) ||
      !internal::InRange(m.delta, 0.0, 1.0) || m.delta >= 1.0) {
    return Status::InvalidArgument();
  }
  // The labels of epsilon are required (docs/privacy.md).
  const int32_t policy = internal::EnumValue(m.policy);
  const int32_t conversion = internal::EnumValue(m.conversion);
  if (policy < edgeadmm_wire_PrivacyPolicy_PRIVACY_POLICY_PARTICIPATION ||
      policy > edgeadmm_wire_PrivacyPolicy_PRIVACY_POLICY_SECURE_AGGREGATION ||
      conversion < edgeadmm_wire_RdpConversion_RDP_CONVERSION_CLASSIC ||
      conversion > edgeadmm_wire_RdpConversion_RDP_CONVERSION_PLD) {
    return Status::InvalidArgument();
  }
  return Status::Ok();
}

StatusWithSize EncodeReleasedModel(const edgeadmm_wire_ReleasedModel& header,
                                   Span<const Real> vector, ByteSpan out) {
  edgeadmm_wire_ReleasedModel message = header;
  message.version = kProtocolVersion;
  const Status valid = ValidateReleasedModel(message, vector.size());
  if (!valid.ok()) return StatusWithSize(valid, 0);
  return internal::EncodeWithVector(edgeadmm_wire_ReleasedModel_fields, message,
                                    &edgeadmm_wire_ReleasedModel::vector,
                                    vector, out);
}

Status DecodeReleasedModel(ConstByteSpan bytes, Span<Real> vector_buffer,
                           DecodedReleasedModel& out) {
  out.header = edgeadmm_wire_ReleasedModel_init_zero;
  size_t count = 0;
  EDGEADMM_TRY(internal::DecodeWithVector(
      edgeadmm_wire_ReleasedModel_fields, bytes, out.header,
      &edgeadmm_wire_ReleasedModel::vector, vector_buffer, count));
  out.vector = vector_buffer.first(count);
  return ValidateReleasedModel(out.header, count);
}

}  // namespace edgeadmm::wire
