// RoundTask: the aggregator's task for one device (GET /v1/task).
#pragma once

#include <edgeadmm.pb.h>

#include "edgeadmm/real.h"
#include "edgeadmm/span.h"
#include "edgeadmm/status.h"

namespace edgeadmm::wire {

// A decoded task: the scalar fields, and the vectors as views into the
// caller's buffers (`auxiliary` is empty when the task carries none).
struct DecodedRoundTask {
  edgeadmm_wire_RoundTask header;
  Span<Real> model;
  Span<Real> auxiliary;
};

// Checks the scalar fields of a task whose model has `model_size` and
// auxiliary vector `auxiliary_size` coordinates (docs/protocol.md, "Validation
// at decode"). Returns OK, INVALID_ARGUMENT (wrong version, enum out of
// range, non-finite or out-of-range parameter, params not matching the
// algorithm, vector sizes not matching dimension / num_samples) or
// OUT_OF_RANGE (dimension 0 for a participating device, or above
// MaxMessageDimension: kMaxRecordDimension for an algorithm whose vectors
// are indexed by records, else kMaxDimension).
Status ValidateRoundTask(const edgeadmm_wire_RoundTask& header,
                         size_t model_size, size_t auxiliary_size);

// The auxiliary vector length a participating task of `header`'s algorithm
// carries: `dimension` when the algorithm has a second vector, else 0; 0 for an
// unknown algorithm.
size_t AuxiliaryLength(const edgeadmm_wire_RoundTask& header);

// The dimension bound of a task of `header`'s algorithm: the record bound,
// MaxMessageDimension(true), when its dimension counts records, else
// kMaxDimension (also for an unknown algorithm).
size_t MaxTaskDimension(const edgeadmm_wire_RoundTask& header);

// Encodes `header` (its `version` and callback fields are overwritten) with
// `model` and `auxiliary` into `out`. Returns the byte count, or
// INVALID_ARGUMENT / OUT_OF_RANGE from validation, RESOURCE_EXHAUSTED if `out`
// is too small.
StatusWithSize EncodeRoundTask(const edgeadmm_wire_RoundTask& header,
                               Span<const Real> model,
                               Span<const Real> auxiliary, ByteSpan out);

// Decodes and validates a task from untrusted bytes, writing the model into
// `model_buffer` and the auxiliary vector into `auxiliary_buffer`. Returns
// OK, DATA_LOSS (not a valid encoding: truncated, bad wire type, vector length
// not a multiple of 4), OUT_OF_RANGE (a vector larger than its buffer or
// kMaxVectorLength, or a dimension above MaxMessageDimension) or
// INVALID_ARGUMENT (see ValidateRoundTask, NaN/Inf value, repeated vector
// field). On error `out` is unspecified.
Status DecodeRoundTask(ConstByteSpan bytes, Span<Real> model_buffer,
                       Span<Real> auxiliary_buffer, DecodedRoundTask& out);

}  // namespace edgeadmm::wire
