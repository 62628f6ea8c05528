// Vectors as BLOBs: little-endian float64 (server state) and float32 (wire).
#pragma once

#include <cstdint>
#include <vector>

#include "edgeadmm/result.h"

namespace edgeadmm::store {

// Encodes doubles as little-endian IEEE-754 binary64.
std::vector<uint8_t> EncodeDoubles(const std::vector<double>& values);
// Decodes binary64 values; DATA_LOSS if the size is not a multiple of 8.
Result<std::vector<double>> DecodeDoubles(const std::vector<uint8_t>& bytes);
// Encodes values as little-endian IEEE-754 binary32 (the wire format).
std::vector<uint8_t> EncodeFloats(const std::vector<double>& values);
// Decodes binary32 values; DATA_LOSS if the size is not a multiple of 4 or a
// value is not finite.
Result<std::vector<double>> DecodeFloats(const std::vector<uint8_t>& bytes);

}  // namespace edgeadmm::store
