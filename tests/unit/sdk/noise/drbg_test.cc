// CTR_DRBG wrapper: determinism from a test seed, seed separation, reseed
// schedule and entropy failures. Portable (runs on the MCU too).
#include "edgeadmm/drbg.h"

#include <array>
#include <cstring>

#include "edgeadmm/config.h"
#include "edgeadmm/fake/test_entropy.h"
#include "gtest/gtest.h"

namespace edgeadmm {
namespace {

constexpr std::byte kPersonalization[] = {std::byte{'t'}, std::byte{'e'},
                                          std::byte{'s'}, std::byte{'t'}};

template <size_t N>
ByteSpan AsSpan(std::array<std::byte, N>& a) {
  return ByteSpan(a.data(), a.size());
}

template <size_t N>
bool Equal(const std::array<std::byte, N>& a,
           const std::array<std::byte, N>& b) {
  return std::memcmp(a.data(), b.data(), N) == 0;
}

// Bytes from a fresh Drbg seeded by TestEntropy(seed).
std::array<std::byte, 64> FirstBytes(uint64_t seed,
                                     ConstByteSpan personalization) {
  TestEntropy entropy(seed);
  Drbg drbg;
  std::array<std::byte, 64> out{};
  EXPECT_TRUE(drbg.Init(entropy, personalization).ok());
  EXPECT_TRUE(drbg.Generate(AsSpan(out)).ok());
  return out;
}

TEST(TestEntropyTest, StreamIsAFunctionOfTheSeed) {
  TestEntropy a(11), b(11), c(12);
  std::array<std::byte, 40> x{}, y{}, z{};
  ASSERT_TRUE(a.Read(AsSpan(x)).ok());
  // The same 40 bytes read in two pieces.
  ASSERT_TRUE(b.Read(ByteSpan(y.data(), 7)).ok());
  ASSERT_TRUE(b.Read(ByteSpan(y.data() + 7, 33)).ok());
  ASSERT_TRUE(c.Read(AsSpan(z)).ok());
  EXPECT_TRUE(Equal(x, y));
  EXPECT_FALSE(Equal(x, z));
  EXPECT_EQ(a.read_count(), 1u);
  EXPECT_EQ(b.read_count(), 2u);
  EXPECT_EQ(b.bytes_read(), 40u);
}

TEST(TestEntropyTest, InjectedFailure) {
  TestEntropy e(1);
  std::array<std::byte, 8> out{};
  e.FailAfterReads(1);
  EXPECT_TRUE(e.Read(AsSpan(out)).ok());
  EXPECT_EQ(e.Read(AsSpan(out)), Status::Unavailable());
  e.StopFailing();
  EXPECT_TRUE(e.Read(AsSpan(out)).ok());
  EXPECT_EQ(e.read_count(), 2u);
}

TEST(DrbgTest, MatchesAnIndependentCtrDrbg) {
  // make_drbg_kat.py: a from-scratch SP 800-90A CTR_DRBG (AES-256, df),
  // itself checked against a NIST CAVP vector, fed the TestEntropy(42) stream
  // (48 entropy bytes, no nonce) and the personalization "test".
  const uint8_t kFirst[32] = {0xe4, 0xf9, 0x64, 0x7d, 0x41, 0x40, 0x11, 0x65,
                              0x86, 0xee, 0x41, 0x41, 0x7c, 0x81, 0x0b, 0x1f,
                              0xec, 0x09, 0x84, 0x2f, 0x47, 0x7c, 0xa4, 0xbd,
                              0xe8, 0xd6, 0xc9, 0xbd, 0xa9, 0x7e, 0xcc, 0x43};
  const uint8_t kSecond[32] = {0x7c, 0x7e, 0x04, 0xf9, 0xf1, 0x4a, 0xcb, 0xa1,
                               0xdb, 0x00, 0xaf, 0x68, 0x85, 0x4b, 0x06, 0xd6,
                               0xe0, 0x9c, 0x4a, 0x5a, 0x2c, 0x63, 0xca, 0xcd,
                               0x62, 0xf5, 0xc9, 0xef, 0x62, 0x40, 0xd6, 0xc2};
  TestEntropy entropy(42);
  Drbg drbg;
  ASSERT_TRUE(drbg.Init(entropy, kPersonalization).ok());
  std::array<std::byte, 32> first{}, second{};
  ASSERT_TRUE(drbg.Generate(AsSpan(first)).ok());
  ASSERT_TRUE(drbg.Generate(AsSpan(second)).ok());
  EXPECT_EQ(std::memcmp(first.data(), kFirst, 32), 0);
  EXPECT_EQ(std::memcmp(second.data(), kSecond, 32), 0);
  EXPECT_EQ(entropy.bytes_read(), 48u);
}

TEST(DrbgTest, SameSeedGivesIdenticalBytes) {
  const auto a = FirstBytes(42, kPersonalization);
  const auto b = FirstBytes(42, kPersonalization);
  EXPECT_TRUE(Equal(a, b));
  std::array<std::byte, 64> zero{};
  EXPECT_FALSE(Equal(a, zero));
}

TEST(DrbgTest, DifferentSeedsOrPersonalizationsDiffer) {
  const auto a = FirstBytes(42, kPersonalization);
  EXPECT_FALSE(Equal(a, FirstBytes(43, kPersonalization)));
  EXPECT_FALSE(Equal(a, FirstBytes(42, ConstByteSpan())));
}

TEST(DrbgTest, ConsecutiveOutputsDiffer) {
  TestEntropy entropy(3);
  Drbg drbg;
  ASSERT_TRUE(drbg.Init(entropy, kPersonalization).ok());
  std::array<std::byte, 32> a{}, b{};
  ASSERT_TRUE(drbg.Generate(AsSpan(a)).ok());
  ASSERT_TRUE(drbg.Generate(AsSpan(b)).ok());
  EXPECT_FALSE(Equal(a, b));
}

TEST(DrbgTest, LongRequestsEqualTheirChunks) {
  // 2500 bytes = requests of 1024 + 1024 + 452; same stream as three calls.
  static std::array<std::byte, 2500> whole{}, pieces{};
  TestEntropy e1(8), e2(8);
  Drbg d1, d2;
  ASSERT_TRUE(d1.Init(e1, ConstByteSpan()).ok());
  ASSERT_TRUE(d2.Init(e2, ConstByteSpan()).ok());
  ASSERT_TRUE(d1.Generate(AsSpan(whole)).ok());
  ASSERT_TRUE(d2.Generate(ByteSpan(pieces.data(), 1024)).ok());
  ASSERT_TRUE(d2.Generate(ByteSpan(pieces.data() + 1024, 1024)).ok());
  ASSERT_TRUE(d2.Generate(ByteSpan(pieces.data() + 2048, 452)).ok());
  EXPECT_TRUE(Equal(whole, pieces));
}

TEST(DrbgTest, ReseedsAfterTheInterval) {
  TestEntropy entropy(5);
  Drbg drbg;
  ASSERT_TRUE(drbg.Init(entropy, kPersonalization).ok());
  const uint32_t reads_after_init = entropy.read_count();
  EXPECT_GE(reads_after_init, 1u);
  std::array<std::byte, 16> out{};
  for (uint32_t i = 0; i < EDGEADMM_CFG_DRBG_RESEED_INTERVAL; ++i) {
    ASSERT_TRUE(drbg.Generate(AsSpan(out)).ok());
  }
  EXPECT_EQ(drbg.reseed_count(), 0u);
  EXPECT_EQ(entropy.read_count(), reads_after_init);
  ASSERT_TRUE(drbg.Generate(AsSpan(out)).ok());
  EXPECT_EQ(drbg.reseed_count(), 1u);
  EXPECT_GT(entropy.read_count(), reads_after_init);
  EXPECT_TRUE(drbg.Reseed(ConstByteSpan()).ok());
  EXPECT_EQ(drbg.reseed_count(), 2u);
}

TEST(DrbgTest, FailsBeforeInitAndOnEntropyFailure) {
  TestEntropy entropy(6);
  Drbg drbg;
  std::array<std::byte, 16> out{};
  EXPECT_EQ(drbg.Generate(AsSpan(out)), Status::FailedPrecondition());
  EXPECT_EQ(drbg.Reseed(ConstByteSpan()), Status::FailedPrecondition());
  entropy.FailAfterReads(0);
  EXPECT_EQ(drbg.Init(entropy, ConstByteSpan()), Status::Unavailable());
  EXPECT_FALSE(drbg.initialized());
  EXPECT_EQ(drbg.Generate(AsSpan(out)), Status::FailedPrecondition());
  entropy.StopFailing();
  ASSERT_TRUE(drbg.Init(entropy, ConstByteSpan()).ok());

  // A due reseed that fails produces nothing; the next call retries it.
  entropy.FailAfterReads(0);
  for (uint32_t i = 0; i < EDGEADMM_CFG_DRBG_RESEED_INTERVAL; ++i) {
    ASSERT_TRUE(drbg.Generate(AsSpan(out)).ok());
  }
  EXPECT_EQ(drbg.Generate(AsSpan(out)), Status::Unavailable());
  EXPECT_EQ(drbg.Generate(AsSpan(out)), Status::Unavailable());
  EXPECT_EQ(drbg.reseed_count(), 0u);
  entropy.StopFailing();
  EXPECT_TRUE(drbg.Generate(AsSpan(out)).ok());
  EXPECT_EQ(drbg.reseed_count(), 1u);
}

TEST(DrbgTest, RejectsOverlongPersonalization) {
  TestEntropy entropy(7);
  Drbg drbg;
  static std::byte longer[Drbg::kMaxPersonalizationBytes + 1] = {};
  EXPECT_EQ(drbg.Init(entropy, ConstByteSpan(longer, sizeof(longer))),
            Status::InvalidArgument());
  EXPECT_TRUE(
      drbg.Init(entropy, ConstByteSpan(longer, sizeof(longer) - 1)).ok());
  static std::byte additional[Drbg::kMaxAdditionalBytes + 1] = {};
  EXPECT_EQ(drbg.Reseed(ConstByteSpan(additional, sizeof(additional))),
            Status::InvalidArgument());
}

TEST(DrbgTest, RestoredReseedCountNeverDecreases) {
  TestEntropy entropy(9);
  Drbg drbg;
  ASSERT_TRUE(drbg.Init(entropy, ConstByteSpan()).ok());
  drbg.RestoreReseedCount(17);
  EXPECT_EQ(drbg.reseed_count(), 17u);
  drbg.RestoreReseedCount(3);
  EXPECT_EQ(drbg.reseed_count(), 17u);
  ASSERT_TRUE(drbg.Reseed(ConstByteSpan()).ok());
  EXPECT_EQ(drbg.reseed_count(), 18u);
}

TEST(DrbgTest, ReinitRestartsTheStream) {
  TestEntropy e1(21), e2(21);
  Drbg drbg;
  std::array<std::byte, 32> a{}, b{};
  ASSERT_TRUE(drbg.Init(e1, ConstByteSpan()).ok());
  ASSERT_TRUE(drbg.Generate(AsSpan(a)).ok());
  ASSERT_TRUE(drbg.Init(e2, ConstByteSpan()).ok());  // same seed, fresh source
  ASSERT_TRUE(drbg.Generate(AsSpan(b)).ok());
  EXPECT_TRUE(Equal(a, b));
}

}  // namespace
}  // namespace edgeadmm
