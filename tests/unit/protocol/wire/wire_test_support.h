// Helpers for the wire tests: sample messages and a raw encoder that writes
// arbitrary bytes into vector fields (to build payloads the real encoders
// refuse to produce: NaN, wrong version, odd lengths).
#pragma once

#include <edgeadmm.pb.h>
#include <pb_encode.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "edgeadmm/real.h"
#include "edgeadmm/span.h"
#include "edgeadmm/wire/protocol.h"
#include "edgeadmm/wire/vector_field.h"
#include "sample_tasks.h"

namespace edgeadmm::wire::testing {

// Values exactly representable in float32, so a round trip is exact.
inline std::vector<Real> Ramp(size_t n, double scale = 0.125) {
  std::vector<Real> v(n);
  for (size_t i = 0; i < n; ++i) {
    v[i] = (static_cast<double>(i % 97) - 48.0) * scale;
  }
  return v;
}

inline ByteSpan AsBytes(std::vector<uint8_t>& v) {
  return ByteSpan(reinterpret_cast<std::byte*>(v.data()), v.size());
}
inline ConstByteSpan AsConstBytes(const std::vector<uint8_t>& v) {
  return ConstByteSpan(reinterpret_cast<const std::byte*>(v.data()), v.size());
}
inline Span<const Real> AsSpan(const std::vector<Real>& v) {
  return Span<const Real>(v.data(), v.size());
}
inline Span<Real> AsSpan(std::vector<Real>& v) {
  return Span<Real>(v.data(), v.size());
}

// float32 LE bytes of `values` (no checks: NaN/Inf pass through).
inline std::vector<uint8_t> Float32Bytes(const std::vector<float>& values) {
  std::vector<uint8_t> out(4 * values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    uint32_t bits;
    std::memcpy(&bits, &values[i], 4);
    for (int b = 0; b < 4; ++b) out[4 * i + b] = uint8_t(bits >> (8 * b));
  }
  return out;
}

// A bytes-field callback that writes *arg (a std::vector<uint8_t>) verbatim.
inline bool EncodeRawBytes(pb_ostream_t* stream, const pb_field_t* field,
                           void* const* arg) {
  const auto& bytes = *static_cast<const std::vector<uint8_t>*>(*arg);
  return pb_encode_tag_for_field(stream, field) &&
         pb_encode_string(stream, bytes.data(), bytes.size());
}
inline void BindRaw(pb_callback_t& field, std::vector<uint8_t>& bytes) {
  field.funcs.encode = &EncodeRawBytes;
  field.arg = &bytes;
}

// pb_encode of a struct whose callbacks the caller bound; no validation.
template <typename Message>
std::vector<uint8_t> EncodeRaw(const pb_msgdesc_t* fields,
                               const Message& message) {
  std::vector<uint8_t> out(MaxRoundTaskBytes(kMaxVectorLength) * 2);
  pb_ostream_t stream = pb_ostream_from_buffer(out.data(), out.size());
  if (!pb_encode(&stream, fields, &message)) return {};
  out.resize(stream.bytes_written);
  return out;
}

// Stores any int32 in a nanopb enum field, as a decoder would (an
// out-of-range value cannot be formed with the C++ enum type itself).
template <typename Enum>
void SetEnum(Enum& field, int32_t value) {
  static_assert(sizeof(Enum) == sizeof(int32_t), "nanopb enums are int32");
  std::memcpy(&field, &value, sizeof(value));
}

// A valid update of dimension p.
inline edgeadmm_wire_Update SampleUpdate(uint32_t p) {
  edgeadmm_wire_Update u = edgeadmm_wire_Update_init_zero;
  u.version = kProtocolVersion;
  u.job_id = 7;
  u.round_id = 42;
  std::strcpy(u.device_id, "device-0001");
  u.kind = edgeadmm_wire_UpdateKind_UPDATE_KIND_DELTA_U;
  u.dimension = p;
  u.has_ledger = true;
  u.ledger.participations = 3;
  u.ledger.epsilon = 0.75;
  u.ledger.delta = 1e-6;
  u.ledger.conversion = edgeadmm_wire_RdpConversion_RDP_CONVERSION_IMPROVED;
  return u;
}

// A valid released model of dimension p.
inline edgeadmm_wire_ReleasedModel SampleModel(uint32_t p) {
  edgeadmm_wire_ReleasedModel m = edgeadmm_wire_ReleasedModel_init_zero;
  m.version = kProtocolVersion;
  m.job_id = 7;
  m.round_id = 41;
  m.dimension = p;
  m.participants = 120;
  m.epsilon = 1.25;
  m.delta = 1e-5;
  m.policy = edgeadmm_wire_PrivacyPolicy_PRIVACY_POLICY_PARTICIPATION;
  m.conversion = edgeadmm_wire_RdpConversion_RDP_CONVERSION_IMPROVED;
  return m;
}

}  // namespace edgeadmm::wire::testing
