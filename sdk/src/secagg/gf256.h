// GF(2^8) arithmetic for Shamir secret sharing (shamir.h), private to the
// SDK's secagg folder.
//
// The field is GF(2)[x] / (x^8 + x^4 + x^3 + x + 1) (0x11B, the AES field of
// FIPS 197 §4). Addition is XOR. Gf256Mul runs the same eight shift-and-add
// steps whatever its operands and selects with masks, never with a branch or
// a table lookup on secret data, so its time does not depend on the values
// (no cache-timing side channel from table indices). Gf256Inv is a fixed
// chain of multiplies (a^254), so it is constant-time too; Gf256Inv(0) is 0.
#pragma once

#include <cstdint>

namespace edgeadmm {
namespace secagg_internal {

inline uint8_t Gf256Add(uint8_t a, uint8_t b) {
  return static_cast<uint8_t>(a ^ b);
}

// a * b in GF(2^8), constant-time.
uint8_t Gf256Mul(uint8_t a, uint8_t b);

// a^-1 in GF(2^8) for a != 0 (a^254 by Fermat); 0 for a == 0. Constant-time.
uint8_t Gf256Inv(uint8_t a);

}  // namespace secagg_internal
}  // namespace edgeadmm
