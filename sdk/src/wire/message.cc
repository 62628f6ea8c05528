#include "message.h"

#include <pb_decode.h>
#include <pb_encode.h>

#include <cmath>
#include <limits>

namespace edgeadmm::wire::internal {
namespace {

Status FirstError(Status a, Status b) { return !a.ok() ? a : b; }

}  // namespace

StatusWithSize EncodeMessage(const pb_msgdesc_t* fields, const void* message,
                             ByteSpan out, VectorEncodeContext* a,
                             VectorEncodeContext* b) {
  pb_ostream_t stream = pb_ostream_from_buffer(
      reinterpret_cast<pb_byte_t*>(out.data()), out.size());
  if (pb_encode(&stream, fields, message)) {
    return StatusWithSize(stream.bytes_written);
  }
  const Status callback_status =
      FirstError(a != nullptr ? a->status : Status::Ok(),
                 b != nullptr ? b->status : Status::Ok());
  return StatusWithSize(
      callback_status.ok() ? Status::ResourceExhausted() : callback_status, 0);
}

Status DecodeMessage(const pb_msgdesc_t* fields, void* message,
                     ConstByteSpan bytes, VectorDecodeContext* a,
                     VectorDecodeContext* b) {
  pb_istream_t stream = pb_istream_from_buffer(
      reinterpret_cast<const pb_byte_t*>(bytes.data()), bytes.size());
  if (pb_decode(&stream, fields, message)) return Status::Ok();
  const Status callback_status =
      FirstError(a != nullptr ? a->status : Status::Ok(),
                 b != nullptr ? b->status : Status::Ok());
  return callback_status.ok() ? Status::DataLoss() : callback_status;
}

bool IsFinite(double value) { return std::isfinite(value); }

bool InRange(double value, double low, double high) {
  return IsFinite(value) && value >= low && value <= high;
}

bool IsPrintableAscii(const char* text, size_t capacity, size_t min_length,
                      bool allow_space) {
  size_t length = 0;
  while (length < capacity && text[length] != '\0') {
    const char c = text[length];
    if (c < (allow_space ? 0x20 : 0x21) || c > 0x7e) return false;
    ++length;
  }
  return length < capacity && length >= min_length;
}

}  // namespace edgeadmm::wire::internal
