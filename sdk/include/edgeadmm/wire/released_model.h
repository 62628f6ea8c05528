// ReleasedModel: the last model the aggregator released (GET /v1/model).
#pragma once

#include <edgeadmm.pb.h>

#include "edgeadmm/real.h"
#include "edgeadmm/span.h"
#include "edgeadmm/status.h"

namespace edgeadmm::wire {

struct DecodedReleasedModel {
  edgeadmm_wire_ReleasedModel header;
  Span<Real> vector;
};

// Checks the scalar fields of a released model of `vector_size` coordinates.
// Returns OK, INVALID_ARGUMENT (wrong version, dimension mismatch, epsilon
// negative or non-finite, delta outside [0, 1)) or OUT_OF_RANGE (dimension 0
// or above kMaxVectorLength, which fits two record-space vectors).
Status ValidateReleasedModel(const edgeadmm_wire_ReleasedModel& header,
                             size_t vector_size);

// Encodes `header` with `vector` into `out`. Returns the byte count,
// INVALID_ARGUMENT / OUT_OF_RANGE from validation, RESOURCE_EXHAUSTED if
// `out` is too small.
StatusWithSize EncodeReleasedModel(const edgeadmm_wire_ReleasedModel& header,
                                   Span<const Real> vector, ByteSpan out);

// Decodes and validates a released model from untrusted bytes. Returns OK,
// DATA_LOSS, OUT_OF_RANGE or INVALID_ARGUMENT as DecodeRoundTask does.
Status DecodeReleasedModel(ConstByteSpan bytes, Span<Real> vector_buffer,
                           DecodedReleasedModel& out);

}  // namespace edgeadmm::wire
