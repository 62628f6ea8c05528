#include "edgeadmm/wire/vector_field.h"

#include <pb_decode.h>
#include <pb_encode.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "edgeadmm/wire/protocol.h"

namespace edgeadmm::wire {
namespace {

// Coordinates converted per stack chunk while streaming.
constexpr size_t kChunk = 16;

bool EncodeVector(pb_ostream_t* stream, const pb_field_t* field,
                  void* const* arg) {
  auto& context = *static_cast<VectorEncodeContext*>(*arg);
  const Span<const Real> values = context.values;
  if (values.empty()) return true;
  if (values.size() > kMaxVectorLength) {
    context.status = Status::OutOfRange();
    return false;
  }
  if (!pb_encode_tag_for_field(stream, field) ||
      !pb_encode_varint(stream, 4 * static_cast<uint64_t>(values.size()))) {
    return false;
  }
  uint8_t chunk[4 * kChunk];
  for (size_t start = 0; start < values.size(); start += kChunk) {
    const size_t n =
        values.size() - start < kChunk ? values.size() - start : kChunk;
    for (size_t i = 0; i < n; ++i) {
      const Real v = values[start + i];
      if (!std::isfinite(v)) {
        context.status = Status::InvalidArgument();
        return false;
      }
      if (std::fabs(v) > static_cast<Real>(std::numeric_limits<float>::max())) {
        context.status = Status::OutOfRange();
        return false;
      }
      StoreFloat32Le(v, chunk + 4 * i);
    }
    if (!pb_write(stream, chunk, 4 * n)) return false;
  }
  return true;
}

bool DecodeVector(pb_istream_t* stream, const pb_field_t* /*field*/,
                  void** arg) {
  auto& context = *static_cast<VectorDecodeContext*>(*arg);
  if (context.present) {  // A repeated vector field is ambiguous: refuse it.
    context.status = Status::InvalidArgument();
    return false;
  }
  context.present = true;
  const size_t bytes = stream->bytes_left;
  if (bytes % 4 != 0) {
    context.status = Status::DataLoss();
    return false;
  }
  const size_t count = bytes / 4;
  if (count > context.buffer.size() || count > kMaxVectorLength) {
    context.status = Status::OutOfRange();
    return false;
  }
  uint8_t chunk[4 * kChunk];
  for (size_t start = 0; start < count; start += kChunk) {
    const size_t n = count - start < kChunk ? count - start : kChunk;
    if (!pb_read(stream, chunk, 4 * n)) return false;
    for (size_t i = 0; i < n; ++i) {
      const float v = LoadFloat32Le(chunk + 4 * i);
      if (!std::isfinite(v)) {
        context.status = Status::InvalidArgument();
        return false;
      }
      context.buffer[start + i] = static_cast<Real>(v);
    }
  }
  context.count = count;
  return true;
}

}  // namespace

void StoreFloat32Le(Real value, uint8_t* out) {
  const float f = static_cast<float>(value);
  uint32_t bits;
  static_assert(sizeof(bits) == sizeof(f), "float must be IEEE-754 binary32");
  std::memcpy(&bits, &f, sizeof(bits));
  out[0] = static_cast<uint8_t>(bits);
  out[1] = static_cast<uint8_t>(bits >> 8);
  out[2] = static_cast<uint8_t>(bits >> 16);
  out[3] = static_cast<uint8_t>(bits >> 24);
}

float LoadFloat32Le(const uint8_t* in) {
  const uint32_t bits = static_cast<uint32_t>(in[0]) |
                        (static_cast<uint32_t>(in[1]) << 8) |
                        (static_cast<uint32_t>(in[2]) << 16) |
                        (static_cast<uint32_t>(in[3]) << 24);
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

void BindVectorEncode(pb_callback_t& field, VectorEncodeContext& context) {
  field.funcs.encode = &EncodeVector;
  field.arg = &context;
}

void BindVectorDecode(pb_callback_t& field, VectorDecodeContext& context) {
  field.funcs.decode = &DecodeVector;
  field.arg = &context;
}

}  // namespace edgeadmm::wire
