// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320, init and final XOR
// 0xFFFFFFFF), as used by zlib and PNG; Crc32("123456789") = 0xCBF43926.
#pragma once

#include <cstdint>

#include "edgeadmm/span.h"

namespace edgeadmm {

// CRC-32 of `data`. Pass a previous result as `crc` to continue over data
// split into pieces: Crc32(b, Crc32(a)) == Crc32(a followed by b).
uint32_t Crc32(ConstByteSpan data, uint32_t crc = 0);

}  // namespace edgeadmm
