#include "edgeadmm/crc32.h"

#include "edgeadmm/config.h"

namespace edgeadmm {
namespace {

// The CRC of `value` shifted through `bits` bits, reflected polynomial
// 0xEDB88320 (one bit per step).
constexpr uint32_t Shifted(uint32_t value, int bits) {
  for (int bit = 0; bit < bits; ++bit) {
    value = (value & 1u) != 0 ? (value >> 1) ^ 0xEDB88320u : value >> 1;
  }
  return value;
}

#if EDGEADMM_CFG_CRC32_SLICED

// Slicing by four: table[k][b] is the CRC of byte b followed by k zero
// bytes, so four bytes fold into the CRC with four independent look-ups.
struct SlicedTables {
  uint32_t table[4][256] = {};
  constexpr SlicedTables() {
    for (uint32_t b = 0; b < 256; ++b) table[0][b] = Shifted(b, 8);
    for (int k = 1; k < 4; ++k) {
      for (uint32_t b = 0; b < 256; ++b) {
        const uint32_t prev = table[k - 1][b];
        table[k][b] = (prev >> 8) ^ table[0][prev & 0xFFu];
      }
    }
  }
};
constexpr SlicedTables kSliced;

uint32_t Update(ConstByteSpan data, uint32_t crc) {
  const std::byte* p = data.data();
  size_t left = data.size();
  const auto& t = kSliced.table;
  for (; left >= 4; left -= 4, p += 4) {
    crc ^= static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
           static_cast<uint32_t>(p[2]) << 16 |
           static_cast<uint32_t>(p[3]) << 24;
    crc = t[3][crc & 0xFFu] ^ t[2][(crc >> 8) & 0xFFu] ^
          t[1][(crc >> 16) & 0xFFu] ^ t[0][crc >> 24];
  }
  for (; left > 0; --left, ++p) {
    crc = (crc >> 8) ^ t[0][(crc ^ static_cast<uint32_t>(*p)) & 0xFFu];
  }
  return crc;
}

#else

// The CRC of each 4-bit value (a 64-byte table instead of a 1 KB one, for
// small flash).
constexpr uint32_t kNibbleTable[16] = {
    Shifted(0, 4),  Shifted(1, 4),  Shifted(2, 4),  Shifted(3, 4),
    Shifted(4, 4),  Shifted(5, 4),  Shifted(6, 4),  Shifted(7, 4),
    Shifted(8, 4),  Shifted(9, 4),  Shifted(10, 4), Shifted(11, 4),
    Shifted(12, 4), Shifted(13, 4), Shifted(14, 4), Shifted(15, 4),
};

uint32_t Update(ConstByteSpan data, uint32_t crc) {
  for (const std::byte b : data) {
    crc ^= static_cast<uint32_t>(b);
    crc = (crc >> 4) ^ kNibbleTable[crc & 0xFu];
    crc = (crc >> 4) ^ kNibbleTable[crc & 0xFu];
  }
  return crc;
}

#endif

}  // namespace

uint32_t Crc32(ConstByteSpan data, uint32_t crc) { return ~Update(data, ~crc); }

}  // namespace edgeadmm
