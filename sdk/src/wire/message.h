// Private helpers shared by the wire message encoders and decoders.
#pragma once

#include <pb.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "edgeadmm/real.h"
#include "edgeadmm/span.h"
#include "edgeadmm/status.h"
#include "edgeadmm/wire/vector_field.h"

namespace edgeadmm::wire::internal {

// Runs pb_encode of `message` into `out`. A failure is reported as the first
// non-OK status of the vector contexts, else RESOURCE_EXHAUSTED (the only
// other way an encode of a valid struct fails is a full buffer).
StatusWithSize EncodeMessage(const pb_msgdesc_t* fields, const void* message,
                             ByteSpan out, VectorEncodeContext* a,
                             VectorEncodeContext* b);

// Runs pb_decode of `bytes` into `message` (zero-initialised first, callbacks
// left as bound by the caller). A failure is reported as the first non-OK
// status of the vector contexts, else DATA_LOSS.
Status DecodeMessage(const pb_msgdesc_t* fields, void* message,
                     ConstByteSpan bytes, VectorDecodeContext* a,
                     VectorDecodeContext* b);

// The integer stored in a nanopb enum field. nanopb stores whatever value
// arrived, and loading an out-of-range value as the C++ enum type is
// undefined behaviour, so validators read enums only through this.
template <typename Enum>
int32_t EnumValue(const Enum& field) {
  static_assert(sizeof(Enum) == sizeof(int32_t), "nanopb enums are int32");
  int32_t value;
  std::memcpy(&value, &field, sizeof(value));
  return value;
}

// Encodes `message` (validated by the caller) with `vector` streamed into
// its callback member `field`. Errors as EncodeMessage.
template <typename Message>
StatusWithSize EncodeWithVector(const pb_msgdesc_t* fields, Message message,
                                pb_callback_t Message::*field,
                                Span<const Real> vector, ByteSpan out) {
  VectorEncodeContext context{vector, Status::Ok()};
  BindVectorEncode(message.*field, context);
  return EncodeMessage(fields, &message, out, &context, nullptr);
}

// Decodes `bytes` into `message` (zero-initialised by the caller) with its
// callback member `field` written into `buffer`; `count` gets the number of
// coordinates. Errors as DecodeMessage; no validation.
template <typename Message>
Status DecodeWithVector(const pb_msgdesc_t* fields, ConstByteSpan bytes,
                        Message& message, pb_callback_t Message::*field,
                        Span<Real> buffer, size_t& count) {
  VectorDecodeContext context;
  context.buffer = buffer;
  BindVectorDecode(message.*field, context);
  const Status decoded =
      DecodeMessage(fields, &message, bytes, &context, nullptr);
  message.*field = pb_callback_t{};
  count = context.count;
  return decoded;
}

bool IsFinite(double value);
// True for finite values in [low, high].
bool InRange(double value, double low, double high);
// True if `text` (NUL-terminated within `capacity`) has 1..max_length
// printable ASCII characters (0x20..0x7e; no space when !allow_space).
bool IsPrintableAscii(const char* text, size_t capacity, size_t min_length,
                      bool allow_space);

}  // namespace edgeadmm::wire::internal
