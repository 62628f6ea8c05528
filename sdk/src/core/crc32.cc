#include "edgeadmm/crc32.h"

namespace edgeadmm {
namespace {

// CRC-32 of each 4-bit value, reflected polynomial 0xEDB88320 (a 64-byte
// table instead of the usual 1 KB one, for small flash).
constexpr uint32_t NibbleEntry(uint32_t nibble) {
  uint32_t crc = nibble;
  for (int bit = 0; bit < 4; ++bit) {
    crc = (crc & 1u) != 0 ? (crc >> 1) ^ 0xEDB88320u : crc >> 1;
  }
  return crc;
}

constexpr uint32_t kNibbleTable[16] = {
    NibbleEntry(0),  NibbleEntry(1),  NibbleEntry(2),  NibbleEntry(3),
    NibbleEntry(4),  NibbleEntry(5),  NibbleEntry(6),  NibbleEntry(7),
    NibbleEntry(8),  NibbleEntry(9),  NibbleEntry(10), NibbleEntry(11),
    NibbleEntry(12), NibbleEntry(13), NibbleEntry(14), NibbleEntry(15),
};

}  // namespace

uint32_t Crc32(ConstByteSpan data, uint32_t crc) {
  crc = ~crc;
  for (const std::byte b : data) {
    crc ^= static_cast<uint32_t>(b);
    crc = (crc >> 4) ^ kNibbleTable[crc & 0xFu];
    crc = (crc >> 4) ^ kNibbleTable[crc & 0xFu];
  }
  return ~crc;
}

}  // namespace edgeadmm
