#include "edgeadmm/wire/status_body.h"

#include "edgeadmm/result.h"
#include "edgeadmm/wire/protocol.h"
#include "message.h"

namespace edgeadmm::wire {

edgeadmm_wire_StatusBody MakeStatusBody(Status status, const char* message,
                                        uint64_t job_id, uint64_t round_id) {
  edgeadmm_wire_StatusBody body = edgeadmm_wire_StatusBody_init_zero;
  body.version = kProtocolVersion;
  body.code = static_cast<uint32_t>(status.code());
  size_t i = 0;
  for (;
       message != nullptr && message[i] != '\0' && i < kMaxStatusMessageLength;
       ++i) {
    body.message[i] = message[i];
  }
  body.message[i] = '\0';
  body.job_id = job_id;
  body.round_id = round_id;
  return body;
}

Status ValidateStatusBody(const edgeadmm_wire_StatusBody& body) {
  if (body.version != kProtocolVersion) return Status::InvalidArgument();
  if (body.code > static_cast<uint32_t>(StatusCode::kUnauthenticated)) {
    return Status::InvalidArgument();
  }
  if (!internal::IsPrintableAscii(body.message, sizeof(body.message), 0,
                                  /*allow_space=*/true)) {
    return Status::InvalidArgument();
  }
  return Status::Ok();
}

StatusWithSize EncodeStatusBody(const edgeadmm_wire_StatusBody& body,
                                ByteSpan out) {
  edgeadmm_wire_StatusBody copy = body;
  copy.version = kProtocolVersion;
  const Status valid = ValidateStatusBody(copy);
  if (!valid.ok()) return StatusWithSize(valid, 0);
  return internal::EncodeMessage(edgeadmm_wire_StatusBody_fields, &copy, out,
                                 nullptr, nullptr);
}

Status DecodeStatusBody(ConstByteSpan bytes, edgeadmm_wire_StatusBody& out) {
  out = edgeadmm_wire_StatusBody_init_zero;
  EDGEADMM_TRY(internal::DecodeMessage(edgeadmm_wire_StatusBody_fields, &out,
                                       bytes, nullptr, nullptr));
  return ValidateStatusBody(out);
}

Status StatusFromBody(const edgeadmm_wire_StatusBody& body) {
  return Status(static_cast<StatusCode>(body.code));
}

}  // namespace edgeadmm::wire
