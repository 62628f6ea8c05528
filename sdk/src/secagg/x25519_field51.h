// GF(p), p = 2^255 - 19, for the X25519 ladder (x25519_ladder.h) on CPUs
// with a 64 x 64 -> 128-bit multiply (x86_64, aarch64: where the compiler
// has unsigned __int128): private to the SDK's secagg folder. About ten
// times fewer multiplies than the radix-2^16 field (x25519_field16.h), the
// same results.
//
// A field element is 5 unsigned limbs of radix 2^51 (value = sum
// v[i]·2^51i mod p). A product's terms above 2^255 are folded with
// 2^255 = 19 mod p. Limb bounds: Mul, Square and Unpack leave every limb
// below 2^51 + 2^20 ("reduced"); Add of two reduced elements and Sub of a
// reduced b from a reduced a stay below 2^53, so a product's column sums
// stay below 5·2^53·19·2^53 < 2^115 inside 128 bits. Every Add/Sub result
// goes straight into a Mul or a Square, never into another Add or Sub.
// No operation branches on or indexes by a value.
#pragma once

#include <cstdint>
#include <cstring>

#include "mbedtls/platform_util.h"

#if defined(__SIZEOF_INT128__)

namespace edgeadmm {
namespace secagg_internal {

// GCC and Clang's 128-bit integer (an extension: -Wpedantic is told so).
__extension__ typedef unsigned __int128 Uint128;

struct Field51 {
  static constexpr int kLimbs = 5;
  struct Fe {
    uint64_t v[kLimbs];
  };

  static void Add(Fe& out, const Fe& a, const Fe& b) {
    for (int i = 0; i < kLimbs; ++i) out.v[i] = a.v[i] + b.v[i];
  }

  // a + 2p - b, limb by limb: 2p's limbs are 2^52 - 38 and 2^52 - 2 (x4),
  // each above a reduced b's limb, so no limb goes negative.
  static void Sub(Fe& out, const Fe& a, const Fe& b) {
    out.v[0] = a.v[0] + ((uint64_t{1} << 52) - 38) - b.v[0];
    for (int i = 1; i < kLimbs; ++i) {
      out.v[i] = a.v[i] + ((uint64_t{1} << 52) - 2) - b.v[i];
    }
  }

  // Column k of a·b: the sum of a_i·b_j over i + j = k, the terms with
  // i + j >= 5 (weight 2^255·2^51(i+j-5)) folded down as 19·a_i·b_j.
  static void Mul(Fe& out, const Fe& a, const Fe& b) {
    const uint64_t a0 = a.v[0], a1 = a.v[1], a2 = a.v[2], a3 = a.v[3],
                   a4 = a.v[4];
    const uint64_t b0 = b.v[0], b1 = b.v[1], b2 = b.v[2], b3 = b.v[3],
                   b4 = b.v[4];
    const uint64_t b1_19 = 19 * b1, b2_19 = 19 * b2, b3_19 = 19 * b3,
                   b4_19 = 19 * b4;
    Uint128 t[kLimbs];
    t[0] = Wide(a0, b0) + Wide(a1, b4_19) + Wide(a2, b3_19) + Wide(a3, b2_19) +
           Wide(a4, b1_19);
    t[1] = Wide(a0, b1) + Wide(a1, b0) + Wide(a2, b4_19) + Wide(a3, b3_19) +
           Wide(a4, b2_19);
    t[2] = Wide(a0, b2) + Wide(a1, b1) + Wide(a2, b0) + Wide(a3, b4_19) +
           Wide(a4, b3_19);
    t[3] = Wide(a0, b3) + Wide(a1, b2) + Wide(a2, b1) + Wide(a3, b0) +
           Wide(a4, b4_19);
    t[4] = Wide(a0, b4) + Wide(a1, b3) + Wide(a2, b2) + Wide(a3, b1) +
           Wide(a4, b0);
    Carry(t, out);
  }

  // a·a with the symmetric products counted once, doubled.
  static void Square(Fe& out, const Fe& a) {
    const uint64_t a0 = a.v[0], a1 = a.v[1], a2 = a.v[2], a3 = a.v[3],
                   a4 = a.v[4];
    const uint64_t d0 = 2 * a0, d1 = 2 * a1, d2 = 2 * a2, d3 = 2 * a3;
    const uint64_t a3_19 = 19 * a3, a4_19 = 19 * a4;
    Uint128 t[kLimbs];
    t[0] = Wide(a0, a0) + Wide(d1, a4_19) + Wide(d2, a3_19);
    t[1] = Wide(d0, a1) + Wide(d2, a4_19) + Wide(a3, a3_19);
    t[2] = Wide(d0, a2) + Wide(a1, a1) + Wide(d3, a4_19);
    t[3] = Wide(d0, a3) + Wide(d1, a2) + Wide(a4, a4_19);
    t[4] = Wide(d0, a4) + Wide(d1, a3) + Wide(a2, a2);
    Carry(t, out);
  }

  // Swaps a and b when swap is 1, leaves them when it is 0, without a branch.
  static void ConditionalSwap(Fe& a, Fe& b, uint32_t swap) {
    const uint64_t mask = uint64_t{0} - swap;
    for (int i = 0; i < kLimbs; ++i) {
      const uint64_t t = mask & (a.v[i] ^ b.v[i]);
      a.v[i] ^= t;
      b.v[i] ^= t;
    }
  }

  // Little-endian bytes, the top bit masked (RFC 7748 §5); a value >= p is
  // accepted and used modulo p, as §5 requires.
  static void Unpack(Fe& out, const unsigned char* bytes) {
    uint64_t w[4];
    for (int i = 0; i < 4; ++i) w[i] = LoadLittleEndian(bytes + 8 * i);
    out.v[0] = w[0] & kMask;
    out.v[1] = ((w[0] >> 51) | (w[1] << 13)) & kMask;
    out.v[2] = ((w[1] >> 38) | (w[2] << 26)) & kMask;
    out.v[3] = ((w[2] >> 25) | (w[3] << 39)) & kMask;
    out.v[4] = (w[3] >> 12) & kMask;  // bit 255 dropped
  }

  // The canonical value in [0, p) as 32 little-endian bytes.
  static void Pack(unsigned char* bytes, const Fe& a) {
    uint64_t h[kLimbs];
    std::memcpy(h, a.v, sizeof(h));
    // From reduced limbs one pass leaves every limb below 2^51 but limb 0,
    // below 2^51 + 19 when the top limb carried; then the top limb is below
    // 2^21, so a second pass leaves every limb below 2^51 (value < 2^255).
    CarryPass(h);
    CarryPass(h);
    // q = 1 exactly when value + 19 >= 2^255, i.e. value >= p.
    uint64_t q = (h[0] + 19) >> 51;
    for (int i = 1; i < kLimbs; ++i) q = (h[i] + q) >> 51;
    h[0] += 19 * q;
    // value + 19q - 2^255·q: carry through and drop bit 255.
    for (int i = 0; i + 1 < kLimbs; ++i) {
      h[i + 1] += h[i] >> 51;
      h[i] &= kMask;
    }
    h[kLimbs - 1] &= kMask;
    const uint64_t w[4] = {h[0] | (h[1] << 51), (h[1] >> 13) | (h[2] << 38),
                           (h[2] >> 26) | (h[3] << 25),
                           (h[3] >> 39) | (h[4] << 12)};
    for (int i = 0; i < 4; ++i) {
      for (int byte = 0; byte < 8; ++byte) {
        bytes[8 * i + byte] = static_cast<unsigned char>(w[i] >> (8 * byte));
      }
    }
    mbedtls_platform_zeroize(h, sizeof(h));
  }

 private:
  static Uint128 Wide(uint64_t a, uint64_t b) {
    return static_cast<Uint128>(a) * b;
  }

  static constexpr uint64_t kMask = (uint64_t{1} << 51) - 1;

  static uint64_t LoadLittleEndian(const unsigned char* bytes) {
    uint64_t w = 0;
    for (int byte = 7; byte >= 0; --byte) w = (w << 8) | bytes[byte];
    return w;
  }

  // Column sums (each below 2^115) to reduced limbs: carries up the
  // columns, the carry out of the top one (below 2^65) folded into limb 0
  // as 19·carry, and that limb's carry into limb 1.
  static void Carry(Uint128* t, Fe& out) {
    for (int k = 0; k + 1 < kLimbs; ++k) {
      t[k + 1] += t[k] >> 51;
      t[k] &= kMask;
    }
    const Uint128 top = t[kLimbs - 1] >> 51;
    t[kLimbs - 1] &= kMask;
    t[0] += top * 19;
    t[1] += t[0] >> 51;
    t[0] &= kMask;
    for (int k = 0; k < kLimbs; ++k) out.v[k] = static_cast<uint64_t>(t[k]);
  }

  // Every limb into [0, 2^51), the carry out of the top limb folded into
  // limb 0 as 19·carry.
  static void CarryPass(uint64_t* h) {
    for (int i = 0; i + 1 < kLimbs; ++i) {
      h[i + 1] += h[i] >> 51;
      h[i] &= kMask;
    }
    const uint64_t top = h[kLimbs - 1] >> 51;
    h[kLimbs - 1] &= kMask;
    h[0] += 19 * top;
  }
};

}  // namespace secagg_internal
}  // namespace edgeadmm

#endif  // __SIZEOF_INT128__
