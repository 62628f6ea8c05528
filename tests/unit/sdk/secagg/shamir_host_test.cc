// Shamir secret sharing, the larger exhaustive secrecy check (host only: 2^16
// splits). For t = 3, the two random coefficients (a1, a2) run over all
// 2^16 values: the pair of shares 1 and 2 takes every value exactly once,
// whatever the secret, so t-1 = 2 shares say nothing about it; share 3
// added, the pair determines it (reconstruction).
#include <cstring>

#include "edgeadmm/secagg/shamir.h"
#include "gtest/gtest.h"
#include "secagg_test_support.h"

namespace edgeadmm {
namespace {

constexpr size_t kN = kShamirSecretBytes;

TEST(ShamirHostTest, TwoSharesOfThreeOfNAreUniformWhateverTheSecret) {
  static uint8_t seen[256 * 256];
  const uint8_t secrets[] = {0x00, 0xC3};
  for (uint8_t s : secrets) {
    std::memset(seen, 0, sizeof(seen));
    std::byte secret[kN];
    std::memset(secret, s, kN);
    for (int a1 = 0; a1 < 256; ++a1) {
      for (int a2 = 0; a2 < 256; ++a2) {
        const uint8_t rows[2] = {static_cast<uint8_t>(a1),
                                 static_cast<uint8_t>(a2)};
        RowBytes random(Span<const uint8_t>(rows, 2));
        ShamirShare shares[3];
        ASSERT_TRUE(ShamirSplit(ConstByteSpan(secret, kN), 3, 3, random,
                                Span<ShamirShare>(shares, 3))
                        .ok());
        const size_t pair =
            size_t{static_cast<uint8_t>(shares[0].value[5])} * 256 +
            static_cast<uint8_t>(shares[1].value[5]);
        ++seen[pair];
      }
    }
    for (size_t pair = 0; pair < 256 * 256; ++pair) {
      ASSERT_EQ(seen[pair], 1) << "secret " << int{s} << " pair " << pair;
    }
  }
}

}  // namespace
}  // namespace edgeadmm
