// GF(p), p = 2^255 - 19, for the X25519 ladder (x25519_ladder.h) on CPUs
// without a 64 x 64 -> 128-bit multiply (the Cortex-M4F, armhf): private
// to the SDK's secagg folder.
//
// A field element is 16 signed limbs of radix 2^16 (value = sum v[i]·2^16i
// mod p). Products are summed in 64 bits and folded with 2^256 = 38 mod p.
// Limb bounds: Reduce leaves every limb in [-38, 2^16 + 38); Add and Sub of
// two such elements stay below 2^17 + 76 in magnitude, so each of a
// product's 31 column sums stays below 16·(2^17 + 76)^2 < 2^39 and the fold
// below 39·2^39 < 2^45, far inside int64. Every Add/Sub result goes
// straight into a Mul. No operation branches on or indexes by a value.
#pragma once

#include <cstdint>

#include "mbedtls/platform_util.h"

namespace edgeadmm {
namespace secagg_internal {

struct Field16 {
  static constexpr int kLimbs = 16;
  struct Fe {
    int32_t v[kLimbs];
  };

  static void Add(Fe& out, const Fe& a, const Fe& b) {
    for (int i = 0; i < kLimbs; ++i) out.v[i] = a.v[i] + b.v[i];
  }

  static void Sub(Fe& out, const Fe& a, const Fe& b) {
    for (int i = 0; i < kLimbs; ++i) out.v[i] = a.v[i] - b.v[i];
  }

  static void Mul(Fe& out, const Fe& a, const Fe& b) {
    int64_t t[2 * kLimbs - 1] = {};
    for (int i = 0; i < kLimbs; ++i) {
      for (int j = 0; j < kLimbs; ++j) {
        t[i + j] += static_cast<int64_t>(a.v[i]) * b.v[j];
      }
    }
    for (int i = 0; i < kLimbs - 1; ++i) t[i] += 38 * t[i + kLimbs];
    Reduce(t, out);
  }

  static void Square(Fe& out, const Fe& a) { Mul(out, a, a); }

  // Swaps a and b when swap is 1, leaves them when it is 0, without a branch.
  static void ConditionalSwap(Fe& a, Fe& b, uint32_t swap) {
    const int32_t mask = -static_cast<int32_t>(swap);
    for (int i = 0; i < kLimbs; ++i) {
      const int32_t t = mask & (a.v[i] ^ b.v[i]);
      a.v[i] ^= t;
      b.v[i] ^= t;
    }
  }

  // Little-endian bytes, the top bit masked (RFC 7748 §5); a value >= p is
  // accepted and used modulo p, as §5 requires.
  static void Unpack(Fe& out, const unsigned char* bytes) {
    for (int i = 0; i < kLimbs; ++i) {
      out.v[i] = bytes[2 * i] | (bytes[2 * i + 1] << 8);
    }
    out.v[kLimbs - 1] &= 0x7fff;
  }

  // The canonical value in [0, p) as 32 little-endian bytes.
  static void Pack(unsigned char* bytes, const Fe& a) {
    int64_t t[kLimbs];
    for (int i = 0; i < kLimbs; ++i) t[i] = a.v[i];
    // Three passes leave every limb in [0, 2^16): the value is in
    // [0, 2^256) < 3p, so at most two subtractions of p remain.
    CarryPass(t);
    CarryPass(t);
    CarryPass(t);
    for (int round = 0; round < 2; ++round) {
      // m = t - p, limb by limb with borrows; p's limbs are 0xffed, 0xffff
      // (x14) and 0x7fff.
      int64_t m[kLimbs];
      int64_t borrow = 0;
      for (int i = 0; i < kLimbs; ++i) {
        const int64_t p_limb =
            i == 0 ? 0xffed : (i == kLimbs - 1 ? 0x7fff : 0xffff);
        m[i] = t[i] - p_limb - borrow;
        borrow = (m[i] >> 16) & 1;
        m[i] &= 0xffff;
      }
      // Keep m when t >= p (no borrow out of the top limb).
      const int64_t keep_t = -borrow;
      for (int i = 0; i < kLimbs; ++i) {
        t[i] = (t[i] & keep_t) | (m[i] & ~keep_t);
      }
    }
    for (int i = 0; i < kLimbs; ++i) {
      bytes[2 * i] = static_cast<unsigned char>(t[i] & 0xff);
      bytes[2 * i + 1] = static_cast<unsigned char>((t[i] >> 8) & 0xff);
    }
    mbedtls_platform_zeroize(t, sizeof(t));
  }

 private:
  // Carries every limb of t into [0, 2^16), the carry out of the top limb
  // folded into limb 0 as 38·carry (2^256 = 38 mod p). The shift is an
  // arithmetic (floor) shift, as GCC and Clang define it for negative
  // values.
  static void CarryPass(int64_t* t) {
    for (int i = 0; i < kLimbs; ++i) {
      const int64_t carry = t[i] >> 16;
      t[i] -= carry * 65536;
      if (i + 1 < kLimbs) {
        t[i + 1] += carry;
      } else {
        t[0] += 38 * carry;
      }
    }
  }

  // After two passes the top carry is -1, 0 or 1: limbs in [-38, 2^16 + 38).
  static void Reduce(int64_t* t, Fe& out) {
    CarryPass(t);
    CarryPass(t);
    for (int i = 0; i < kLimbs; ++i) out.v[i] = static_cast<int32_t>(t[i]);
  }
};

}  // namespace secagg_internal
}  // namespace edgeadmm
