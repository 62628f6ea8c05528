// Vectors as BLOBs: little-endian float64 (server state) and float32 (wire).
#pragma once

#include <cstdint>
#include <vector>

#include "edgeadmm/result.h"

namespace edgeadmm::store {

// True when the host stores IEEE-754 values little-endian, i.e. the BLOB
// bytes are the in-memory bytes and a memcpy encodes or decodes them.
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
inline constexpr bool kHostIsLittleEndian = true;
#else
inline constexpr bool kHostIsLittleEndian = false;
#endif

// Encodes doubles as little-endian IEEE-754 binary64.
std::vector<uint8_t> EncodeDoubles(const std::vector<double>& values);
// Decodes binary64 values; DATA_LOSS if the size is not a multiple of 8.
Result<std::vector<double>> DecodeDoubles(const std::vector<uint8_t>& bytes);
// Encodes values as little-endian IEEE-754 binary32 (the wire format).
std::vector<uint8_t> EncodeFloats(const std::vector<double>& values);
// Decodes binary32 values; DATA_LOSS if the size is not a multiple of 4 or a
// value is not finite.
Result<std::vector<double>> DecodeFloats(const std::vector<uint8_t>& bytes);

namespace internal {
// The byte-by-byte encodings, used on big-endian hosts; exposed so tests can
// check that the memcpy ones produce the same bytes.
std::vector<uint8_t> EncodeDoublesBytewise(const std::vector<double>& values);
std::vector<uint8_t> EncodeFloatsBytewise(const std::vector<double>& values);
}  // namespace internal

}  // namespace edgeadmm::store
