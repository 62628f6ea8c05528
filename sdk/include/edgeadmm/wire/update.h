// Update: one device's contribution to (job, round) (POST /v1/update).
#pragma once

#include <edgeadmm.pb.h>

#include "edgeadmm/real.h"
#include "edgeadmm/span.h"
#include "edgeadmm/status.h"

namespace edgeadmm::wire {

// A decoded update: the scalar fields and the vector in the caller's buffer.
struct DecodedUpdate {
  edgeadmm_wire_Update header;
  Span<Real> vector;
};

// Checks the scalar fields of an update carrying `vector_size` coordinates.
// Returns OK, INVALID_ARGUMENT (wrong version, device id empty or not
// printable ASCII, kind out of range, dimension mismatch, ledger missing,
// non-finite or negative ledger epsilon, delta outside [0, 1),
// algorithm_extra longer than kMaxAlgorithmExtraBytes) or OUT_OF_RANGE
// (dimension 0 or above MaxMessageDimension: kMaxRecordDimension for a share,
// else kMaxDimension).
Status ValidateUpdate(const edgeadmm_wire_Update& header, size_t vector_size);

// Encodes `header` (its version and the vector callback are
// overwritten) with `vector` into `out`, streaming it as float32 LE. Returns
// the byte count, INVALID_ARGUMENT / OUT_OF_RANGE from validation or a
// non-finite / beyond-float32 coordinate, RESOURCE_EXHAUSTED if `out` is too
// small.
StatusWithSize EncodeUpdate(const edgeadmm_wire_Update& header,
                            Span<const Real> vector, ByteSpan out);

// The bytes of an encoded update up to its vector's values: every scalar
// field, then the key and length of the vector field for `vector_size`
// coordinates. The whole message is this prefix followed by the
// 4 * vector_size float32 LE bytes of the vector: a device streams an upload
// larger than its RAM by producing the values as they are sent (docs/sdk.md,
// "Streaming party"). It decodes to the same update as EncodeUpdate's bytes,
// which are the same except that a nonempty algorithm_extra (field 10)
// follows the vector there (field-number order). Errors as EncodeUpdate's.
StatusWithSize EncodeUpdatePrefix(const edgeadmm_wire_Update& header,
                                  size_t vector_size, ByteSpan out);

// Decodes and validates an update from untrusted bytes (the aggregator's
// side). Returns OK, DATA_LOSS, OUT_OF_RANGE or INVALID_ARGUMENT as
// DecodeRoundTask does.
Status DecodeUpdate(ConstByteSpan bytes, Span<Real> vector_buffer,
                    DecodedUpdate& out);

}  // namespace edgeadmm::wire
