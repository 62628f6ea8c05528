// The X25519 function (RFC 7748 §5): the Montgomery ladder on Curve25519,
// generic over the field representation (x25519_field16.h on 32-bit CPUs,
// x25519_field51.h where the compiler has a 128-bit integer; x25519.cc
// picks one). Private to the SDK's secagg folder; the tests compare the
// two representations.
//
// The ladder's swaps and the field arithmetic do not branch on or index by
// a secret; the scalar's bits enter only through ConditionalSwap's mask.
// Both projective points start at random representatives (x·r : r), which
// does not change the result (the ladder's formulas are homogeneous), so
// the intermediate values an observer of power or timing sees differ from
// call to call for the same scalar.
#pragma once

#include <cstring>

#include "edgeadmm/secagg/key_agreement.h"
#include "mbedtls/platform_util.h"

namespace edgeadmm {
namespace secagg_internal {

// a^(p-2) = 1/a (Fermat); 0 for a = 0. The exponent's bits are public:
// p - 2 = 2^255 - 21 has every bit from 254 down to 0 set except 4 and 2.
template <typename Field>
void Invert(typename Field::Fe& out, const typename Field::Fe& a) {
  typename Field::Fe c = a;
  for (int bit = 253; bit >= 0; --bit) {
    Field::Square(c, c);
    if (bit != 4 && bit != 2) Field::Mul(c, c, a);
  }
  out = c;
  mbedtls_platform_zeroize(&c, sizeof(c));
}

template <typename Field>
bool IsZero(const typename Field::Fe& a) {
  unsigned char bytes[32];
  Field::Pack(bytes, a);
  unsigned char any = 0;
  for (unsigned char b : bytes) any |= b;
  return any == 0;
}

// A random nonzero field element for blinding.
template <typename Field>
Status RandomNonzero(RandomByteSource& random, typename Field::Fe& out) {
  unsigned char bytes[32];
  if (!random.Generate(ByteSpan(reinterpret_cast<std::byte*>(bytes), 32))
           .ok()) {
    return Status::Internal();
  }
  Field::Unpack(out, bytes);
  mbedtls_platform_zeroize(bytes, sizeof(bytes));
  if (IsZero<Field>(out)) {  // probability 2^-254: use 1
    static const unsigned char kOne[32] = {1};
    Field::Unpack(out, kOne);
  }
  return Status::Ok();
}

// out = x-coordinate of [k]u for the clamped 32-byte scalar k
// (x25519_scalar.h); a low-order u gives 0.
template <typename Field>
Status X25519Ladder(const unsigned char* k, const unsigned char* u,
                    RandomByteSource& random, unsigned char* out) {
  using Fe = typename Field::Fe;
  // All state of one ladder, zeroized when the call ends.
  struct LadderState {
    Fe x1, x2, z2, x3, z3, a, aa, b, bb, e, c, d, da, cb, t;
  };
  // a24 = (486662 - 2) / 4 = 121665 = 0x1db41 (RFC 7748 §5).
  static const unsigned char kA24Bytes[32] = {0x41, 0xdb, 0x01};
  Fe a24;
  Field::Unpack(a24, kA24Bytes);
  LadderState s;
  std::memset(&s, 0, sizeof(s));
  Field::Unpack(s.x1, u);
  // (x2 : z2) = (r : 0), the point at infinity; (x3 : z3) = (u·r' : r').
  Status status = RandomNonzero<Field>(random, s.x2);
  if (status.ok()) status = RandomNonzero<Field>(random, s.z3);
  if (!status.ok()) {
    mbedtls_platform_zeroize(&s, sizeof(s));
    return status;
  }
  Field::Mul(s.x3, s.x1, s.z3);
  uint32_t swap = 0;
  for (int bit = 254; bit >= 0; --bit) {
    const uint32_t k_bit = (k[bit >> 3] >> (bit & 7)) & 1;
    swap ^= k_bit;
    Field::ConditionalSwap(s.x2, s.x3, swap);
    Field::ConditionalSwap(s.z2, s.z3, swap);
    swap = k_bit;
    Field::Add(s.a, s.x2, s.z2);
    Field::Square(s.aa, s.a);
    Field::Sub(s.b, s.x2, s.z2);
    Field::Square(s.bb, s.b);
    Field::Sub(s.e, s.aa, s.bb);
    Field::Add(s.c, s.x3, s.z3);
    Field::Sub(s.d, s.x3, s.z3);
    Field::Mul(s.da, s.d, s.a);
    Field::Mul(s.cb, s.c, s.b);
    Field::Add(s.t, s.da, s.cb);
    Field::Square(s.x3, s.t);
    Field::Sub(s.t, s.da, s.cb);
    Field::Square(s.t, s.t);
    Field::Mul(s.z3, s.x1, s.t);
    Field::Mul(s.x2, s.aa, s.bb);
    Field::Mul(s.t, a24, s.e);
    Field::Add(s.t, s.aa, s.t);
    Field::Mul(s.z2, s.e, s.t);
  }
  Field::ConditionalSwap(s.x2, s.x3, swap);
  Field::ConditionalSwap(s.z2, s.z3, swap);
  // x2 / z2; the point at infinity (z2 = 0, a low-order u) gives 0.
  Invert<Field>(s.t, s.z2);
  Field::Mul(s.t, s.x2, s.t);
  Field::Pack(out, s.t);
  mbedtls_platform_zeroize(&s, sizeof(s));
  return Status::Ok();
}

}  // namespace secagg_internal
}  // namespace edgeadmm
