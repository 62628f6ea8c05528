// Mask expansion (AES-256-CTR): Mbed TLS's AES-256 against NIST SP 800-38A,
// the PRG against an independent computation (OpenSSL), determinism and
// domain separation, pairwise masks of three devices cancel in the sum,
// refusals. Portable (runs on the MCU too).
#include "edgeadmm/secagg/mask_prg.h"

#include <cstring>

#include "edgeadmm/drbg.h"
#include "edgeadmm/fake/test_entropy.h"
#include "gtest/gtest.h"
#include "mbedtls/aes.h"

namespace edgeadmm {
namespace {

// Seed 00 01 .. 1f.
struct Seed {
  std::byte bytes[kMaskSeedBytes];
  Seed() {
    for (size_t i = 0; i < kMaskSeedBytes; ++i) bytes[i] = std::byte(i);
  }
  ConstByteSpan span() const { return ConstByteSpan(bytes, kMaskSeedBytes); }
};

int Hex(char c) { return c <= '9' ? c - '0' : c - 'a' + 10; }
void FromHex(const char* hex, unsigned char* out, size_t bytes) {
  for (size_t i = 0; i < bytes; ++i) {
    out[i] =
        static_cast<unsigned char>(Hex(hex[2 * i]) * 16 + Hex(hex[2 * i + 1]));
  }
}

// NIST SP 800-38A Appendix F.5.5, CTR-AES256.Encrypt, all four blocks.
TEST(MaskPrgTest, MbedTlsAes256CtrMatchesSp80038a) {
  unsigned char key[32];
  FromHex("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4",
          key, 32);
  const char* plain[4] = {
      "6bc1bee22e409f96e93d7e117393172a", "ae2d8a571e03ac9c9eb76fac45af8e51",
      "30c81c46a35ce411e5fbc1191a0a52ef", "f69f2445df4f9b17ad2b417be66c3710"};
  const char* cipher[4] = {
      "601ec313775789a5b7a7f504bbf3d228", "f443e3ca4d62b59aca84e990cacaf5c5",
      "2b0930daa23de94ce87017ba2d84988d", "dfc9c58db67aada613c2dd08457941a6"};
  unsigned char counter[16];
  FromHex("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff", counter, 16);
  mbedtls_aes_context aes;
  mbedtls_aes_init(&aes);
  ASSERT_EQ(mbedtls_aes_setkey_enc(&aes, key, 256), 0);
  for (int block = 0; block < 4; ++block) {
    unsigned char stream[16], p[16], c[16];
    ASSERT_EQ(mbedtls_aes_crypt_ecb(&aes, MBEDTLS_AES_ENCRYPT, counter, stream),
              0);
    FromHex(plain[block], p, 16);
    FromHex(cipher[block], c, 16);
    for (int i = 0; i < 16; ++i) EXPECT_EQ(p[i] ^ stream[i], c[i]) << block;
    for (int i = 15; i >= 0 && ++counter[i] == 0; --i) {
    }
  }
  mbedtls_aes_free(&aes);
}

// The expected words are an independent computation of the keystream:
//   head -c 32 /dev/zero | openssl enc -aes-256-ctr -K 000102..1f
//     -iv 0102030405060708 PP 000000 00000000 | xxd -p
// with PP = 01 (pairwise) or 02 (self), read as little-endian uint32.
TEST(MaskPrgTest, MatchesOpenSslAes256Ctr) {
  const Seed seed;
  const MaskLabel pairwise{0x0102030405060708u, MaskPurpose::kPairwise};
  const MaskLabel self{0x0102030405060708u, MaskPurpose::kSelf};
  const uint32_t expected_pairwise[8] = {0x7b146186u, 0x4cf8a690u, 0x1b54ed82u,
                                         0x6eea27e3u, 0x27939d03u, 0xb0a881ddu,
                                         0xa89571c0u, 0xce0eb222u};
  const uint32_t expected_self[8] = {0x577e76dcu, 0xf2ed7686u, 0xe33e0380u,
                                     0x2a78c0a0u, 0x20d073ddu, 0x4cd824d5u,
                                     0xc0cf5db7u, 0xc964e26au};
  uint32_t out[8];
  ASSERT_TRUE(ExpandMask(seed.span(), pairwise, Span<uint32_t>(out, 8)).ok());
  for (int i = 0; i < 8; ++i) EXPECT_EQ(out[i], expected_pairwise[i]) << i;
  ASSERT_TRUE(ExpandMask(seed.span(), self, Span<uint32_t>(out, 8)).ok());
  for (int i = 0; i < 8; ++i) EXPECT_EQ(out[i], expected_self[i]) << i;
  // A prefix (not a whole number of blocks) is the same stream.
  uint32_t prefix[5];
  ASSERT_TRUE(ExpandMask(seed.span(), self, Span<uint32_t>(prefix, 5)).ok());
  EXPECT_EQ(std::memcmp(prefix, expected_self, sizeof(prefix)), 0);
}

TEST(MaskPrgTest, AddThenSubtractRestoresAndLabelsSeparate) {
  const Seed seed;
  uint32_t values[13], original[13];
  for (uint32_t i = 0; i < 13; ++i) values[i] = original[i] = 0xFFFFFFF0u + i;
  const MaskLabel label{7, MaskPurpose::kPairwise};
  ASSERT_TRUE(
      ApplyMask(seed.span(), label, MaskSign::kAdd, Span<uint32_t>(values, 13))
          .ok());
  EXPECT_NE(std::memcmp(values, original, sizeof(values)), 0);
  ASSERT_TRUE(ApplyMask(seed.span(), label, MaskSign::kSubtract,
                        Span<uint32_t>(values, 13))
                  .ok());
  EXPECT_EQ(std::memcmp(values, original, sizeof(values)), 0);
  uint32_t round7[4], round8[4];
  ASSERT_TRUE(ExpandMask(seed.span(), label, Span<uint32_t>(round7, 4)).ok());
  ASSERT_TRUE(ExpandMask(seed.span(), MaskLabel{8, MaskPurpose::kPairwise},
                         Span<uint32_t>(round8, 4))
                  .ok());
  EXPECT_NE(std::memcmp(round7, round8, sizeof(round7)), 0);
}

// SecAgg's pairwise masks: device i adds +PRG(s_ij) for j > i and -PRG(s_ij)
// for j < i (and its own self mask, removed again by the unmasking); the
// masked inputs differ from the inputs but their sum mod 2^32 is the sum of
// the inputs.
TEST(MaskPrgTest, PairwiseMasksOfThreeDevicesCancelInTheSum) {
  constexpr size_t kDevices = 3;
  constexpr size_t kWords = 37;
  TestEntropy entropy(2020);
  Drbg drbg;
  ASSERT_TRUE(drbg.Init(entropy, ConstByteSpan()).ok());
  std::byte pair_seed[kDevices][kDevices][kMaskSeedBytes];
  std::byte self_seed[kDevices][kMaskSeedBytes];
  for (size_t i = 0; i < kDevices; ++i) {
    ASSERT_TRUE(drbg.Generate(ByteSpan(self_seed[i], kMaskSeedBytes)).ok());
    for (size_t j = i + 1; j < kDevices; ++j) {
      ASSERT_TRUE(
          drbg.Generate(ByteSpan(pair_seed[i][j], kMaskSeedBytes)).ok());
      std::memcpy(pair_seed[j][i], pair_seed[i][j], kMaskSeedBytes);
    }
  }
  uint32_t input[kDevices][kWords];
  uint32_t masked[kDevices][kWords];
  ASSERT_TRUE(drbg.Generate(ByteSpan(reinterpret_cast<std::byte*>(input),
                                     sizeof(input)))
                  .ok());
  const uint64_t round = 99;
  for (size_t i = 0; i < kDevices; ++i) {
    std::memcpy(masked[i], input[i], sizeof(input[i]));
    const Span<uint32_t> y(masked[i], kWords);
    ASSERT_TRUE(ApplyMask(ConstByteSpan(self_seed[i], kMaskSeedBytes),
                          MaskLabel{round, MaskPurpose::kSelf}, MaskSign::kAdd,
                          y)
                    .ok());
    for (size_t j = 0; j < kDevices; ++j) {
      if (j == i) continue;
      ASSERT_TRUE(ApplyMask(ConstByteSpan(pair_seed[i][j], kMaskSeedBytes),
                            MaskLabel{round, MaskPurpose::kPairwise},
                            j > i ? MaskSign::kAdd : MaskSign::kSubtract, y)
                      .ok());
    }
    EXPECT_NE(std::memcmp(masked[i], input[i], sizeof(input[i])), 0);
  }
  // The server's sum, then the self masks removed (their seeds recovered
  // from Shamir shares in the protocol).
  uint32_t sum[kWords] = {};
  uint32_t plain_sum[kWords] = {};
  for (size_t i = 0; i < kDevices; ++i) {
    for (size_t w = 0; w < kWords; ++w) {
      sum[w] += masked[i][w];
      plain_sum[w] += input[i][w];
    }
  }
  EXPECT_NE(std::memcmp(sum, plain_sum, sizeof(sum)), 0);  // self masks on
  for (size_t i = 0; i < kDevices; ++i) {
    ASSERT_TRUE(ApplyMask(ConstByteSpan(self_seed[i], kMaskSeedBytes),
                          MaskLabel{round, MaskPurpose::kSelf},
                          MaskSign::kSubtract, Span<uint32_t>(sum, kWords))
                    .ok());
  }
  EXPECT_EQ(std::memcmp(sum, plain_sum, sizeof(sum)), 0);
}

TEST(MaskPrgTest, RefusesBadSeedOrPurpose) {
  const Seed seed;
  uint32_t out[4] = {1, 2, 3, 4};
  EXPECT_EQ(ExpandMask(ConstByteSpan(seed.bytes, kMaskSeedBytes - 1),
                       MaskLabel{}, Span<uint32_t>(out, 4)),
            Status::InvalidArgument());
  EXPECT_EQ(out[0], 0u);
  uint32_t values[2] = {5, 6};
  EXPECT_EQ(ApplyMask(seed.span(), MaskLabel{1, static_cast<MaskPurpose>(4)},
                      MaskSign::kAdd, Span<uint32_t>(values, 2)),
            Status::InvalidArgument());
  EXPECT_EQ(values[0], 5u);
  EXPECT_EQ(values[1], 6u);
  EXPECT_TRUE(ExpandMask(seed.span(), MaskLabel{}, Span<uint32_t>()).ok());
}

}  // namespace
}  // namespace edgeadmm
