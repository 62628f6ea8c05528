// GetrandomEntropy fills buffers of any size with kernel randomness and
// seeds the DRBG.
#include <array>
#include <cstring>
#include <vector>

#include "edgeadmm/drbg.h"
#include "edgeadmm/posix/getrandom_entropy.h"
#include "gtest/gtest.h"

namespace edgeadmm {
namespace {

TEST(GetrandomEntropyTest, FillsBuffersWithFreshBytes) {
  GetrandomEntropy entropy;
  std::array<std::byte, 64> a{}, b{}, zero{};
  ASSERT_TRUE(entropy.Read(ByteSpan(a.data(), a.size())).ok());
  ASSERT_TRUE(entropy.Read(ByteSpan(b.data(), b.size())).ok());
  EXPECT_NE(std::memcmp(a.data(), zero.data(), a.size()), 0);
  EXPECT_NE(std::memcmp(a.data(), b.data(), a.size()), 0);
  EXPECT_TRUE(entropy.Read(ByteSpan()).ok());
}

TEST(GetrandomEntropyTest, FillsALargeBufferCompletely) {
  // 1 MiB: every byte value appears (a missing value has probability
  // ~256·e^-4096) and the tail is written too.
  GetrandomEntropy entropy;
  std::vector<std::byte> big(1 << 20, std::byte{0});
  ASSERT_TRUE(entropy.Read(ByteSpan(big.data(), big.size())).ok());
  std::array<int, 256> counts{};
  for (const std::byte x : big) ++counts[static_cast<uint8_t>(x)];
  for (int c : counts) {
    EXPECT_GT(c, 3000);  // mean 4096, sd 64
    EXPECT_LT(c, 5200);
  }
  std::array<std::byte, 256> zero{};
  EXPECT_NE(std::memcmp(big.data() + big.size() - 256, zero.data(), 256), 0);
}

TEST(GetrandomEntropyTest, SeedsTheDrbg) {
  GetrandomEntropy entropy;
  Drbg d1, d2;
  ASSERT_TRUE(d1.Init(entropy, ConstByteSpan()).ok());
  ASSERT_TRUE(d2.Init(entropy, ConstByteSpan()).ok());
  std::array<std::byte, 32> a{}, b{};
  ASSERT_TRUE(d1.Generate(ByteSpan(a.data(), a.size())).ok());
  ASSERT_TRUE(d2.Generate(ByteSpan(b.data(), b.size())).ok());
  EXPECT_NE(std::memcmp(a.data(), b.data(), a.size()), 0);
}

}  // namespace
}  // namespace edgeadmm
