#include "edgeadmm/byte_order.h"

namespace edgeadmm {

// Shifts by a constant 8 per byte: no variable 64-bit shift on a 32-bit core.
void StoreLittleEndian(std::byte* out, uint64_t value, size_t bytes) {
  for (size_t i = 0; i < bytes; ++i, value >>= 8) {
    out[i] = static_cast<std::byte>(value & 0xFFu);
  }
}

uint64_t LoadLittleEndian(const std::byte* in, size_t bytes) {
  uint64_t value = 0;
  for (size_t i = bytes; i > 0; --i) {
    value = (value << 8) | static_cast<uint64_t>(in[i - 1]);
  }
  return value;
}

void StoreBigEndian(unsigned char* out, uint64_t value, size_t bytes) {
  for (size_t i = bytes; i > 0; --i, value >>= 8) {
    out[i - 1] = static_cast<unsigned char>(value & 0xFFu);
  }
}

}  // namespace edgeadmm
