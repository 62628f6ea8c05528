// X25519 (RFC 7748 §5): the Montgomery ladder on Curve25519 over
// GF(p), p = 2^255 - 19, in constant time (see key_agreement.h).
//
// A field element is 16 signed limbs of radix 2^16 (value = sum v[i]·2^16i
// mod p). Products are summed in 64 bits and folded with 2^256 = 38 mod p.
// Limb bounds: Reduce leaves every limb in [-38, 2^16 + 38); Add and Sub of
// two such elements stay below 2^17 + 76 in magnitude, so each of a
// product's 31 column sums stays below 16·(2^17 + 76)^2 < 2^39 and the fold
// below 39·2^39 < 2^45, far inside int64. Every Add/Sub result goes
// straight into a Mul.
//
// The ladder's swaps and the limb arithmetic do not branch on or index by
// a secret; the scalar's bits enter only through ConditionalSwap's mask.
// Both projective points start at random representatives (x·r : r), which
// does not change the result (the ladder's formulas are homogeneous), so
// the intermediate values an observer of power or timing sees differ from
// call to call for the same scalar.
#include <cstdint>
#include <cstring>

#include "edgeadmm/secagg/key_agreement.h"
#include "mbedtls/platform_util.h"
#include "x25519_scalar.h"

namespace edgeadmm {
namespace {

constexpr int kLimbs = 16;

struct Fe {
  int32_t v[kLimbs];
};

// Carries every limb of t into [0, 2^16), the carry out of the top limb
// folded into limb 0 as 38·carry (2^256 = 38 mod p). The shift is an
// arithmetic (floor) shift, as GCC and Clang define it for negative values.
void CarryPass(int64_t* t) {
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
void Reduce(int64_t* t, Fe& out) {
  CarryPass(t);
  CarryPass(t);
  for (int i = 0; i < kLimbs; ++i) out.v[i] = static_cast<int32_t>(t[i]);
}

void Add(Fe& out, const Fe& a, const Fe& b) {
  for (int i = 0; i < kLimbs; ++i) out.v[i] = a.v[i] + b.v[i];
}

void Sub(Fe& out, const Fe& a, const Fe& b) {
  for (int i = 0; i < kLimbs; ++i) out.v[i] = a.v[i] - b.v[i];
}

void Mul(Fe& out, const Fe& a, const Fe& b) {
  int64_t t[2 * kLimbs - 1] = {};
  for (int i = 0; i < kLimbs; ++i) {
    for (int j = 0; j < kLimbs; ++j) {
      t[i + j] += static_cast<int64_t>(a.v[i]) * b.v[j];
    }
  }
  for (int i = 0; i < kLimbs - 1; ++i) t[i] += 38 * t[i + kLimbs];
  Reduce(t, out);
}

void Square(Fe& out, const Fe& a) { Mul(out, a, a); }

// Swaps a and b when swap is 1, leaves them when it is 0, without a branch.
void ConditionalSwap(Fe& a, Fe& b, uint32_t swap) {
  const int32_t mask = -static_cast<int32_t>(swap);
  for (int i = 0; i < kLimbs; ++i) {
    const int32_t t = mask & (a.v[i] ^ b.v[i]);
    a.v[i] ^= t;
    b.v[i] ^= t;
  }
}

// Little-endian bytes, the top bit masked (RFC 7748 §5); a value >= p is
// accepted and used modulo p, as §5 requires.
void Unpack(Fe& out, const unsigned char* bytes) {
  for (int i = 0; i < kLimbs; ++i) {
    out.v[i] = bytes[2 * i] | (bytes[2 * i + 1] << 8);
  }
  out.v[kLimbs - 1] &= 0x7fff;
}

// The canonical value in [0, p) as 32 little-endian bytes.
void Pack(unsigned char* bytes, const Fe& a) {
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
    for (int i = 0; i < kLimbs; ++i) t[i] = (t[i] & keep_t) | (m[i] & ~keep_t);
  }
  for (int i = 0; i < kLimbs; ++i) {
    bytes[2 * i] = static_cast<unsigned char>(t[i] & 0xff);
    bytes[2 * i + 1] = static_cast<unsigned char>((t[i] >> 8) & 0xff);
  }
  mbedtls_platform_zeroize(t, sizeof(t));
}

// a^(p-2) = 1/a (Fermat); 0 for a = 0. The exponent's bits are public:
// p - 2 = 2^255 - 21 has every bit from 254 down to 0 set except 4 and 2.
void Invert(Fe& out, const Fe& a) {
  Fe c = a;
  for (int bit = 253; bit >= 0; --bit) {
    Square(c, c);
    if (bit != 4 && bit != 2) Mul(c, c, a);
  }
  out = c;
  mbedtls_platform_zeroize(&c, sizeof(c));
}

bool IsZero(const Fe& a) {
  unsigned char bytes[32];
  Pack(bytes, a);
  unsigned char any = 0;
  for (unsigned char b : bytes) any |= b;
  return any == 0;
}

// A random nonzero field element for blinding.
Status RandomNonzero(RandomByteSource& random, Fe& out) {
  unsigned char bytes[32];
  if (!random.Generate(ByteSpan(reinterpret_cast<std::byte*>(bytes), 32))
           .ok()) {
    return Status::Internal();
  }
  Unpack(out, bytes);
  mbedtls_platform_zeroize(bytes, sizeof(bytes));
  if (IsZero(out)) {  // probability 2^-254: use 1
    std::memset(&out, 0, sizeof(out));
    out.v[0] = 1;
  }
  return Status::Ok();
}

// All state of one ladder, zeroized when the call ends.
struct LadderState {
  Fe x1, x2, z2, x3, z3, a, aa, b, bb, e, c, d, da, cb, t;
};

// out = x-coordinate of [k]u for the clamped 32-byte scalar k.
Status Ladder(const unsigned char* k, const unsigned char* u,
              RandomByteSource& random, unsigned char* out) {
  // a24 = (486662 - 2) / 4 = 121665 = 0x1db41 (RFC 7748 §5).
  static const Fe kA24 = {{0xdb41, 1}};
  LadderState s;
  std::memset(&s, 0, sizeof(s));
  Unpack(s.x1, u);
  // (x2 : z2) = (r : 0), the point at infinity; (x3 : z3) = (u·r' : r').
  Status status = RandomNonzero(random, s.x2);
  if (status.ok()) status = RandomNonzero(random, s.z3);
  if (!status.ok()) {
    mbedtls_platform_zeroize(&s, sizeof(s));
    return status;
  }
  Mul(s.x3, s.x1, s.z3);
  uint32_t swap = 0;
  for (int bit = 254; bit >= 0; --bit) {
    const uint32_t k_bit = (k[bit >> 3] >> (bit & 7)) & 1;
    swap ^= k_bit;
    ConditionalSwap(s.x2, s.x3, swap);
    ConditionalSwap(s.z2, s.z3, swap);
    swap = k_bit;
    Add(s.a, s.x2, s.z2);
    Square(s.aa, s.a);
    Sub(s.b, s.x2, s.z2);
    Square(s.bb, s.b);
    Sub(s.e, s.aa, s.bb);
    Add(s.c, s.x3, s.z3);
    Sub(s.d, s.x3, s.z3);
    Mul(s.da, s.d, s.a);
    Mul(s.cb, s.c, s.b);
    Add(s.t, s.da, s.cb);
    Square(s.x3, s.t);
    Sub(s.t, s.da, s.cb);
    Square(s.t, s.t);
    Mul(s.z3, s.x1, s.t);
    Mul(s.x2, s.aa, s.bb);
    Mul(s.t, kA24, s.e);
    Add(s.t, s.aa, s.t);
    Mul(s.z2, s.e, s.t);
  }
  ConditionalSwap(s.x2, s.x3, swap);
  ConditionalSwap(s.z2, s.z3, swap);
  // x2 / z2; the point at infinity (z2 = 0, a low-order u) gives 0.
  Invert(s.t, s.z2);
  Mul(s.t, s.x2, s.t);
  Pack(out, s.t);
  mbedtls_platform_zeroize(&s, sizeof(s));
  return Status::Ok();
}

}  // namespace

Status X25519(ConstByteSpan scalar, ConstByteSpan u, RandomByteSource& random,
              ByteSpan out) {
  if (scalar.size() != kX25519KeyBytes || u.size() != kX25519KeyBytes ||
      out.size() != kX25519KeyBytes) {
    return Status::InvalidArgument();
  }
  unsigned char k[kX25519KeyBytes];
  std::memcpy(k, scalar.data(), sizeof(k));
  secagg_internal::ClampX25519Scalar(k);
  unsigned char* result = reinterpret_cast<unsigned char*>(out.data());
  const Status status = Ladder(
      k, reinterpret_cast<const unsigned char*>(u.data()), random, result);
  mbedtls_platform_zeroize(k, sizeof(k));
  if (!status.ok()) {
    mbedtls_platform_zeroize(result, kX25519KeyBytes);
    return status;
  }
  // A low-order u gives an all-zero secret (RFC 7748 §6.1).
  unsigned char any = 0;
  for (size_t i = 0; i < kX25519KeyBytes; ++i) any |= result[i];
  return any == 0 ? Status::InvalidArgument() : Status::Ok();
}

}  // namespace edgeadmm
