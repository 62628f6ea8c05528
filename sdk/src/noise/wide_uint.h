// WideUint: the two 128-bit integer operations the discrete Gaussian sampler
// needs (a 64×64 → 128-bit product and a 128 / 64-bit division), written
// with 64-bit operations only so that every target (Cortex-M4F has no
// __int128) computes the same bits. Private to sdk/src/noise.
#pragma once

#include <cstdint>

namespace edgeadmm {
namespace wide {

// A 128-bit unsigned integer hi·2^64 + lo.
struct Uint128 {
  uint64_t hi = 0;
  uint64_t lo = 0;
};

// a·b exactly.
inline Uint128 Multiply(uint64_t a, uint64_t b) {
  const uint64_t a_lo = a & 0xffffffffu, a_hi = a >> 32;
  const uint64_t b_lo = b & 0xffffffffu, b_hi = b >> 32;
  const uint64_t lo_lo = a_lo * b_lo;
  const uint64_t hi_lo = a_hi * b_lo;
  const uint64_t lo_hi = a_lo * b_hi;
  const uint64_t hi_hi = a_hi * b_hi;
  // Middle column: at most 3·(2^32 − 1) < 2^34, no overflow.
  const uint64_t middle = (lo_lo >> 32) + (hi_lo & 0xffffffffu) + lo_hi;
  Uint128 product;
  product.lo = (middle << 32) | (lo_lo & 0xffffffffu);
  product.hi = hi_hi + (hi_lo >> 32) + (middle >> 32);
  return product;
}

// n = quotient·d + remainder, 0 ≤ remainder < d; d ≥ 1 (restoring division,
// one bit per step).
inline void DivMod(Uint128 n, uint64_t d, Uint128* quotient,
                   uint64_t* remainder) {
  quotient->hi = n.hi / d;
  uint64_t r = n.hi % d;
  uint64_t q = 0;
  for (int bit = 63; bit >= 0; --bit) {
    // r < d ≤ 2^64 − 1; 2r + b may need 65 bits: keep the carry.
    const bool carry = (r >> 63) != 0;
    r = (r << 1) | ((n.lo >> bit) & 1u);
    q <<= 1;
    if (carry || r >= d) {
      r -= d;  // exact modulo 2^64: the true value minus d is below d
      q |= 1u;
    }
  }
  quotient->lo = q;
  *remainder = r;
}

}  // namespace wide
}  // namespace edgeadmm
