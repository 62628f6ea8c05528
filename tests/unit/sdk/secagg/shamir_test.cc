// Shamir secret sharing over GF(2^8): the field against FIPS 197, every
// t-subset reconstructs, one share of a 2-of-n split is uniform whatever the
// secret (exhaustive over the randomness), refusals. Portable (runs on the
// MCU too).
#include "edgeadmm/secagg/shamir.h"

#include <cstring>

#include "edgeadmm/drbg.h"
#include "edgeadmm/fake/test_entropy.h"
#include "gf256.h"
#include "gtest/gtest.h"
#include "secagg_test_support.h"

namespace edgeadmm {
namespace {

using secagg_internal::Gf256Inv;
using secagg_internal::Gf256Mul;

constexpr size_t kN = kShamirSecretBytes;

void FillSecret(std::byte (&secret)[kN], uint8_t first) {
  for (size_t i = 0; i < kN; ++i) {
    secret[i] = static_cast<std::byte>(first + 37 * i);
  }
}

TEST(Gf256Test, MultiplyMatchesFips197) {
  // FIPS 197 §4.2: {57} x {83} = {c1}, {57} x {13} = {fe}.
  EXPECT_EQ(Gf256Mul(0x57, 0x83), 0xC1);
  EXPECT_EQ(Gf256Mul(0x83, 0x57), 0xC1);
  EXPECT_EQ(Gf256Mul(0x57, 0x13), 0xFE);
  EXPECT_EQ(Gf256Mul(0x57, 0x01), 0x57);
  EXPECT_EQ(Gf256Mul(0x57, 0x00), 0x00);
  // {57} x {02} = {ae}, x {04} = {47} (the xtime steps of §4.2.1).
  EXPECT_EQ(Gf256Mul(0x57, 0x02), 0xAE);
  EXPECT_EQ(Gf256Mul(0x57, 0x04), 0x47);
}

TEST(Gf256Test, EveryNonZeroElementHasItsInverse) {
  EXPECT_EQ(Gf256Inv(0), 0);
  for (int a = 1; a < 256; ++a) {
    EXPECT_EQ(
        Gf256Mul(static_cast<uint8_t>(a), Gf256Inv(static_cast<uint8_t>(a))), 1)
        << a;
  }
}

// Reconstructs from shares[picked[0..count)] and compares with `secret`.
bool ReconstructsFrom(const ShamirShare* shares, const size_t* picked,
                      size_t count, size_t threshold,
                      const std::byte (&secret)[kN]) {
  ShamirShare subset[8];
  for (size_t i = 0; i < count; ++i) {
    subset[i] = shares[picked[i]];
  }
  std::byte out[kN];
  if (!ShamirReconstruct(Span<const ShamirShare>(subset, count), threshold,
                         ByteSpan(out, kN))
           .ok()) {
    return false;
  }
  return std::memcmp(out, secret, kN) == 0;
}

TEST(ShamirTest, EveryThresholdSubsetReconstructs) {
  TestEntropy entropy(33);
  Drbg drbg;
  ASSERT_TRUE(drbg.Init(entropy, ConstByteSpan()).ok());
  for (size_t threshold = 2; threshold <= 5; ++threshold) {
    std::byte secret[kN];
    FillSecret(secret, static_cast<uint8_t>(threshold));
    ShamirShare shares[5];
    ASSERT_TRUE(ShamirSplit(ConstByteSpan(secret, kN), threshold, 5, drbg,
                            Span<ShamirShare>(shares, 5))
                    .ok());
    for (size_t i = 0; i < 5; ++i) {
      EXPECT_EQ(shares[i].index, i + 1);
    }
    // Every subset of {0..4} of size >= threshold, in a rotated order too.
    size_t subsets = 0;
    for (unsigned mask = 0; mask < 32; ++mask) {
      size_t picked[5];
      size_t count = 0;
      for (size_t i = 0; i < 5; ++i) {
        if (mask & (1u << i)) picked[count++] = i;
      }
      if (count < threshold) continue;
      ++subsets;
      EXPECT_TRUE(ReconstructsFrom(shares, picked, count, threshold, secret))
          << "threshold " << threshold << " mask " << mask;
      size_t rotated[5];
      for (size_t i = 0; i < count; ++i) rotated[i] = picked[(i + 1) % count];
      EXPECT_TRUE(ReconstructsFrom(shares, rotated, count, threshold, secret));
    }
    EXPECT_GT(subsets, 0u);
    // threshold - 1 shares, claimed as enough: not the secret.
    const size_t fewer[4] = {0, 1, 2, 3};
    if (threshold > 2) {
      EXPECT_FALSE(ReconstructsFrom(shares, fewer, threshold - 1, threshold - 1,
                                    secret));
    }
  }
}

TEST(ShamirTest, MaximalSplitReconstructsFromTheLastShares) {
  TestEntropy entropy(34);
  Drbg drbg;
  ASSERT_TRUE(drbg.Init(entropy, ConstByteSpan()).ok());
  static ShamirShare shares[kShamirMaxShares];
  std::byte secret[kN];
  FillSecret(secret, 200);
  ASSERT_TRUE(ShamirSplit(ConstByteSpan(secret, kN), 4, kShamirMaxShares, drbg,
                          Span<ShamirShare>(shares, kShamirMaxShares))
                  .ok());
  EXPECT_EQ(shares[254].index, 255);
  const size_t picked[4] = {254, 100, 7, 253};
  EXPECT_TRUE(ReconstructsFrom(shares, picked, 4, 4, secret));
}

// t = 2: share x = s + a x, a the one random coefficient. Over all 256
// values of a, every share takes every byte value exactly once, for every
// secret tried: one share says nothing about the secret.
TEST(ShamirTest, OneShareOfTwoOfNIsUniformWhateverTheSecret) {
  static ShamirShare shares[kShamirMaxShares];
  const uint8_t secrets[] = {0x00, 0x01, 0x5A, 0xFF};
  for (uint8_t s : secrets) {
    std::byte secret[kN];
    std::memset(secret, s, kN);
    static uint16_t seen[kShamirMaxShares][256];
    std::memset(seen, 0, sizeof(seen));
    for (int a = 0; a < 256; ++a) {
      ConstantBytes coefficient(static_cast<uint8_t>(a));
      ASSERT_TRUE(ShamirSplit(ConstByteSpan(secret, kN), 2, kShamirMaxShares,
                              coefficient,
                              Span<ShamirShare>(shares, kShamirMaxShares))
                      .ok());
      for (size_t i = 0; i < kShamirMaxShares; ++i) {
        ++seen[i][static_cast<uint8_t>(shares[i].value[0])];
        // Every byte of the secret is shared the same way.
        EXPECT_EQ(shares[i].value[kN - 1], shares[i].value[0]);
      }
    }
    for (size_t i = 0; i < kShamirMaxShares; ++i) {
      for (int y = 0; y < 256; ++y) {
        ASSERT_EQ(seen[i][y], 1)
            << "secret " << int{s} << " share " << i + 1 << " value " << y;
      }
    }
  }
}

TEST(ShamirTest, SplitRefusesBadParameters) {
  ConstantBytes random(7);
  std::byte secret[kN] = {};
  ShamirShare shares[6];
  const Span<ShamirShare> out(shares, 6);
  const ConstByteSpan ok_secret(secret, kN);
  EXPECT_EQ(ShamirSplit(ok_secret, 1, 5, random, out),
            Status::InvalidArgument());
  EXPECT_EQ(ShamirSplit(ok_secret, 0, 5, random, out),
            Status::InvalidArgument());
  EXPECT_EQ(ShamirSplit(ok_secret, 6, 5, random, out),
            Status::InvalidArgument());
  EXPECT_EQ(ShamirSplit(ok_secret, 2, 7, random, out),
            Status::InvalidArgument());
  EXPECT_EQ(ShamirSplit(ok_secret, 2, 256, random, out),
            Status::InvalidArgument());
  EXPECT_EQ(ShamirSplit(ConstByteSpan(secret, kN - 1), 2, 5, random, out),
            Status::InvalidArgument());
  EXPECT_TRUE(ShamirSplit(ok_secret, 5, 5, random, out).ok());
  EXPECT_TRUE(ShamirSplit(ok_secret, 2, 2, random, out).ok());
  FailingBytes failing;
  EXPECT_EQ(ShamirSplit(ok_secret, 2, 5, failing, out), Status::Unavailable());
  EXPECT_EQ(shares[0].index, 0);  // zeroized on error
}

TEST(ShamirTest, ReconstructRefusesBadShares) {
  ConstantBytes random(9);
  std::byte secret[kN];
  FillSecret(secret, 3);
  ShamirShare shares[4];
  ASSERT_TRUE(ShamirSplit(ConstByteSpan(secret, kN), 3, 4, random,
                          Span<ShamirShare>(shares, 4))
                  .ok());
  std::byte out[kN];
  const ByteSpan ok_out(out, kN);
  EXPECT_EQ(ShamirReconstruct(Span<const ShamirShare>(shares, 2), 3, ok_out),
            Status::FailedPrecondition());
  EXPECT_EQ(ShamirReconstruct(Span<const ShamirShare>(shares, 4), 1, ok_out),
            Status::InvalidArgument());
  EXPECT_EQ(ShamirReconstruct(Span<const ShamirShare>(shares, 4), 3,
                              ByteSpan(out, kN - 1)),
            Status::InvalidArgument());
  ShamirShare duplicate[3] = {shares[0], shares[1], shares[1]};
  EXPECT_EQ(ShamirReconstruct(Span<const ShamirShare>(duplicate, 3), 3, ok_out),
            Status::InvalidArgument());
  // A duplicate beyond the first t shares is refused too.
  ShamirShare late_duplicate[4] = {shares[0], shares[1], shares[2], shares[0]};
  EXPECT_EQ(
      ShamirReconstruct(Span<const ShamirShare>(late_duplicate, 4), 3, ok_out),
      Status::InvalidArgument());
  ShamirShare zero[3] = {shares[0], shares[1], shares[2]};
  zero[2].index = 0;
  EXPECT_EQ(ShamirReconstruct(Span<const ShamirShare>(zero, 3), 3, ok_out),
            Status::InvalidArgument());
  EXPECT_TRUE(
      ShamirReconstruct(Span<const ShamirShare>(shares + 1, 3), 3, ok_out)
          .ok());
  EXPECT_EQ(std::memcmp(out, secret, kN), 0);
}

}  // namespace
}  // namespace edgeadmm
