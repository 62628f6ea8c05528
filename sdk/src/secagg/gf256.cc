// GF(2^8) multiply and inverse, constant-time (see gf256.h).
#include "gf256.h"

namespace edgeadmm {
namespace secagg_internal {

uint8_t Gf256Mul(uint8_t a, uint8_t b) {
  uint32_t x = a;
  uint32_t y = b;
  uint32_t product = 0;
  for (int bit = 0; bit < 8; ++bit) {
    // mask is all ones when the low bit of y is set, else zero.
    const uint32_t mask = 0u - (y & 1u);
    product ^= x & mask;
    y >>= 1;
    // x * X mod 0x11B: shift, and reduce when bit 8 came out.
    const uint32_t carry = 0u - ((x >> 7) & 1u);
    x = ((x << 1) ^ (0x11Bu & carry)) & 0xFFu;
  }
  return static_cast<uint8_t>(product);
}

uint8_t Gf256Inv(uint8_t a) {
  // a^254 = a^(2+4+8+16+32+64+128): square and multiply, a fixed chain.
  uint8_t square = Gf256Mul(a, a);  // a^2
  uint8_t result = square;
  for (int i = 0; i < 6; ++i) {
    square = Gf256Mul(square, square);  // a^4 .. a^128
    result = Gf256Mul(result, square);
  }
  return result;
}

}  // namespace secagg_internal
}  // namespace edgeadmm
