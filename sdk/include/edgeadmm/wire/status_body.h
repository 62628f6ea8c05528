// StatusBody: the body of every error response and of the upload receipt.
#pragma once

#include <edgeadmm.pb.h>

#include "edgeadmm/span.h"
#include "edgeadmm/status.h"

namespace edgeadmm::wire {

// Fills a StatusBody for `status` with a short ASCII `message` (truncated to
// kMaxStatusMessageLength) and the (job, round) it refers to.
edgeadmm_wire_StatusBody MakeStatusBody(Status status, const char* message,
                                        uint64_t job_id, uint64_t round_id);

// Checks a StatusBody. Returns OK or INVALID_ARGUMENT (wrong version, code
// not a canonical status code, message not printable ASCII).
Status ValidateStatusBody(const edgeadmm_wire_StatusBody& body);

// Encodes `body` (version overwritten). Returns the byte count,
// INVALID_ARGUMENT from validation, RESOURCE_EXHAUSTED if `out` is too small.
StatusWithSize EncodeStatusBody(const edgeadmm_wire_StatusBody& body,
                                ByteSpan out);

// Decodes and validates a StatusBody from untrusted bytes. Returns OK,
// DATA_LOSS (not a valid encoding, message longer than its bound) or
// INVALID_ARGUMENT.
Status DecodeStatusBody(ConstByteSpan bytes, edgeadmm_wire_StatusBody& out);

// The Status a decoded body carries (its code as a StatusCode).
Status StatusFromBody(const edgeadmm_wire_StatusBody& body);

}  // namespace edgeadmm::wire
