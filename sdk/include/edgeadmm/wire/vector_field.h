// Streams model vectors through nanopb `bytes` callback fields as
// little-endian float32, straight from and into the caller's Real buffers.
//
// Encoding converts each Real to float32 on the fly (16 coordinates at a time
// on the stack), so the vector is never copied into a second buffer. Decoding
// converts each float32 into the caller's buffer and checks it once: the byte
// length must be a multiple of 4, fit the buffer and kMaxVectorLength, the
// field must appear at most once, and every value must be finite.
#pragma once

#include <pb.h>

#include <cstddef>

#include "edgeadmm/real.h"
#include "edgeadmm/span.h"
#include "edgeadmm/status.h"

namespace edgeadmm::wire {

// State of one vector field being encoded. `status` reports why a callback
// failed: INVALID_ARGUMENT for a non-finite value, OUT_OF_RANGE for a value
// beyond float32 range or more than kMaxVectorLength coordinates.
struct VectorEncodeContext {
  Span<const Real> values;
  Status status;
};

// State of one vector field being decoded. After decoding, `count` holds the
// number of coordinates written to `buffer` and `present` whether the field
// appeared. `status` reports why a callback failed: DATA_LOSS for a length
// that is not a multiple of 4, OUT_OF_RANGE for more coordinates than the
// buffer or kMaxVectorLength, INVALID_ARGUMENT for a NaN/Inf value or a
// repeated field.
struct VectorDecodeContext {
  Span<Real> buffer;
  size_t count = 0;
  bool present = false;
  Status status;
};

// Makes `field` encode `context.values` (an empty span writes no field).
void BindVectorEncode(pb_callback_t& field, VectorEncodeContext& context);
// Makes `field` decode into `context.buffer`.
void BindVectorDecode(pb_callback_t& field, VectorDecodeContext& context);

// Converts one Real to its float32 LE bytes (no checks).
void StoreFloat32Le(Real value, uint8_t* out);
// Reads one float32 LE value.
float LoadFloat32Le(const uint8_t* in);

}  // namespace edgeadmm::wire
