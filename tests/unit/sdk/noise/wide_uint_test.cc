// The 128-bit product and division of the discrete Gaussian sampler
// (sdk/src/noise/wide_uint.h) at the limits the sampler reaches: a < 2^63,
// a² < 2^126, divisors up to 2^64 − 1. Portable.
#include "wide_uint.h"

#include <cstdint>

#include "gtest/gtest.h"

namespace edgeadmm {
namespace {

constexpr uint64_t kMax = ~uint64_t{0};

TEST(WideUintTest, ProductsAreExact) {
  // (2^63 − 1)² = 2^126 − 2^64 + 1.
  wide::Uint128 p = wide::Multiply(0x7fffffffffffffffu, 0x7fffffffffffffffu);
  EXPECT_EQ(p.hi, 0x3fffffffffffffffu);
  EXPECT_EQ(p.lo, 1u);
  // (2^64 − 1)² = 2^128 − 2^65 + 1.
  p = wide::Multiply(kMax, kMax);
  EXPECT_EQ(p.hi, kMax - 1);
  EXPECT_EQ(p.lo, 1u);
  p = wide::Multiply(0x100000000u, 0x100000000u);  // 2^64
  EXPECT_EQ(p.hi, 1u);
  EXPECT_EQ(p.lo, 0u);
  p = wide::Multiply(123456789u, 987654321u);
  EXPECT_EQ(p.hi, 0u);
  EXPECT_EQ(p.lo, 121932631112635269u);
}

TEST(WideUintTest, DivisionIsExact) {
  wide::Uint128 q;
  uint64_t r = 0;
  // (2^128 − 2^65 + 1) / (2^64 − 1) = 2^64 − 1, remainder 0.
  wide::DivMod(wide::Multiply(kMax, kMax), kMax, &q, &r);
  EXPECT_EQ(q.hi, 0u);
  EXPECT_EQ(q.lo, kMax);
  EXPECT_EQ(r, 0u);
  // (2^126 − 2^64 + 1) / 3: 2^126 ≡ 1, 2^64 ≡ 1 (mod 3), so remainder 1.
  wide::DivMod(wide::Multiply(0x7fffffffffffffffu, 0x7fffffffffffffffu), 3, &q,
               &r);
  EXPECT_EQ(r, 1u);
  // q = (2^126 − 2^64)/3 = 2^64·(2^62 − 1)/3.
  EXPECT_EQ(q.lo, 0u);
  EXPECT_EQ(q.hi, 0x1555555555555555u);
  // A divisor above 2^63 exercises the carry of the restoring step:
  // (2^64 − 1)·(2^63 + 5) + 7 divided by 2^63 + 5.
  wide::Uint128 n = wide::Multiply(kMax, 0x8000000000000005u);
  n.lo += 7;
  if (n.lo < 7) ++n.hi;
  wide::DivMod(n, 0x8000000000000005u, &q, &r);
  EXPECT_EQ(q.hi, 0u);
  EXPECT_EQ(q.lo, kMax);
  EXPECT_EQ(r, 7u);
}

}  // namespace
}  // namespace edgeadmm
