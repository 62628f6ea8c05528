// X25519 + HKDF-SHA256 pairwise keys: RFC 7748 §6.1's Diffie-Hellman
// vector, both sides of a pair derive one key, the purposes and the pairs
// are separated, low-order peer keys and bad sizes refused. Portable: on a
// build whose Mbed TLS lacks X25519 (armhf's configuration) it checks that
// every function says UNIMPLEMENTED. On bare metal Mbed TLS allocates from
// the static pool of platform/dtls only (cmake/deps/mbedtls_config.h); the
// test starts it and measures how much of it one X25519 needs.
#include "edgeadmm/secagg/key_agreement.h"

#include <cstring>

#include "edgeadmm/drbg.h"
#include "edgeadmm/fake/test_entropy.h"
#include "edgeadmm/log.h"
#include "gtest/gtest.h"
#if EDGEADMM_TEST_DTLS_POOL
#include "edgeadmm/dtls/dtls_memory_pool.h"
#endif
#include "secagg_test_support.h"

namespace edgeadmm {
namespace {

constexpr size_t kK = kX25519KeyBytes;

int Hex(char c) { return c <= '9' ? c - '0' : c - 'a' + 10; }
struct Key {
  std::byte bytes[kK] = {};
  Key() = default;
  explicit Key(const char* hex) {
    for (size_t i = 0; i < kK; ++i) {
      bytes[i] = std::byte(Hex(hex[2 * i]) * 16 + Hex(hex[2 * i + 1]));
    }
  }
  ByteSpan span() { return ByteSpan(bytes, kK); }
  ConstByteSpan cspan() const { return ConstByteSpan(bytes, kK); }
  bool operator==(const Key& o) const {
    return std::memcmp(bytes, o.bytes, kK) == 0;
  }
};

// RFC 7748 §6.1.
const char kAlicePrivate[] =
    "77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a";
const char kAlicePublic[] =
    "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a";
const char kBobPrivate[] =
    "5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb";
const char kBobPublic[] =
    "de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f";
const char kShared[] =
    "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742";

class KeyAgreementTest : public ::testing::Test {
 protected:
  void SetUp() override {
#if EDGEADMM_TEST_DTLS_POOL
    dtls::StartDtlsMemoryPool();  // bare metal: Mbed TLS's only allocator
#endif
    ASSERT_TRUE(drbg_.Init(entropy_, ConstByteSpan()).ok());
  }
  TestEntropy entropy_{7748};
  Drbg drbg_;
};

TEST_F(KeyAgreementTest, UnimplementedWithoutX25519) {
  if (KeyAgreementAvailable()) return;  // covered by the tests below
  Key a, b, c;
  EXPECT_EQ(X25519KeyPair(drbg_, a.span(), b.span()), Status::Unimplemented());
  EXPECT_EQ(X25519(a.cspan(), b.cspan(), drbg_, c.span()),
            Status::Unimplemented());
  EXPECT_EQ(DerivePairwiseKey(a.cspan(), b.cspan(), c.cspan(),
                              PairwiseKeyPurpose::kMaskSeed, drbg_, c.span()),
            Status::Unimplemented());
}

TEST_F(KeyAgreementTest, Rfc7748DiffieHellmanVector) {
  if (!KeyAgreementAvailable()) return;
  Key base;
  base.bytes[0] = std::byte{9};
  Key alice_public, bob_public, shared_ab, shared_ba;
  ASSERT_TRUE(X25519(Key(kAlicePrivate).cspan(), base.cspan(), drbg_,
                     alice_public.span())
                  .ok());
  ASSERT_TRUE(
      X25519(Key(kBobPrivate).cspan(), base.cspan(), drbg_, bob_public.span())
          .ok());
  EXPECT_TRUE(alice_public == Key(kAlicePublic));
  EXPECT_TRUE(bob_public == Key(kBobPublic));
  ASSERT_TRUE(X25519(Key(kAlicePrivate).cspan(), Key(kBobPublic).cspan(), drbg_,
                     shared_ab.span())
                  .ok());
  ASSERT_TRUE(X25519(Key(kBobPrivate).cspan(), Key(kAlicePublic).cspan(), drbg_,
                     shared_ba.span())
                  .ok());
  EXPECT_TRUE(shared_ab == Key(kShared));
  EXPECT_TRUE(shared_ba == Key(kShared));
}

#if EDGEADMM_TEST_DTLS_POOL
// Bare metal: X25519 runs in the firmware's Mbed TLS pool (platform/dtls,
// dtls_memory_pool.h) and frees what it took; the pool's high-water mark
// after two of them is what one needs (docs/sdk.md).
TEST_F(KeyAgreementTest, X25519RunsInTheStaticPool) {
  ASSERT_TRUE(KeyAgreementAvailable());
  for (int i = 0; i < 2; ++i) {
    Key shared;
    ASSERT_TRUE(X25519(Key(kAlicePrivate).cspan(), Key(kBobPublic).cspan(),
                       drbg_, shared.span())
                    .ok());
    EXPECT_TRUE(shared == Key(kShared));
  }
  const size_t high_water = dtls::DtlsPoolHighWater();
  EDGEADMM_LOG_INFO("X25519 pool high water: %u of %u bytes",
                    static_cast<unsigned>(high_water),
                    static_cast<unsigned>(dtls::DtlsPoolBytes()));
  EXPECT_GT(high_water, 0u);
  EXPECT_LE(high_water, dtls::DtlsPoolBytes());
}
#endif

// RFC 7748 §5: the top bit of u is masked, so u and u + 2^255 agree.
TEST_F(KeyAgreementTest, TopBitOfUIsIgnored) {
  if (!KeyAgreementAvailable()) return;
  Key high(kBobPublic);
  high.bytes[31] |= std::byte{0x80};
  Key plain_out, high_out;
  ASSERT_TRUE(
      X25519(Key(kAlicePrivate).cspan(), high.cspan(), drbg_, high_out.span())
          .ok());
  ASSERT_TRUE(X25519(Key(kAlicePrivate).cspan(), Key(kBobPublic).cspan(), drbg_,
                     plain_out.span())
                  .ok());
  EXPECT_TRUE(high_out == plain_out);
  EXPECT_TRUE(high_out == Key(kShared));
}

TEST_F(KeyAgreementTest, BothSidesDeriveTheSameKeyPerPurpose) {
  if (!KeyAgreementAvailable()) return;
  Key private_key[3], public_key[3];
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(
        X25519KeyPair(drbg_, private_key[i].span(), public_key[i].span()).ok());
    // Clamped (RFC 7748 §5).
    EXPECT_EQ(static_cast<uint8_t>(private_key[i].bytes[0]) & 7, 0);
    EXPECT_EQ(static_cast<uint8_t>(private_key[i].bytes[31]) & 0xC0, 0x40);
  }
  EXPECT_FALSE(public_key[0] == public_key[1]);
  Key k01, k10, e01, k02;
  ASSERT_TRUE(DerivePairwiseKey(private_key[0].cspan(), public_key[0].cspan(),
                                public_key[1].cspan(),
                                PairwiseKeyPurpose::kMaskSeed, drbg_,
                                k01.span())
                  .ok());
  ASSERT_TRUE(DerivePairwiseKey(private_key[1].cspan(), public_key[1].cspan(),
                                public_key[0].cspan(),
                                PairwiseKeyPurpose::kMaskSeed, drbg_,
                                k10.span())
                  .ok());
  ASSERT_TRUE(DerivePairwiseKey(private_key[0].cspan(), public_key[0].cspan(),
                                public_key[1].cspan(),
                                PairwiseKeyPurpose::kShareEncryption, drbg_,
                                e01.span())
                  .ok());
  ASSERT_TRUE(DerivePairwiseKey(private_key[0].cspan(), public_key[0].cspan(),
                                public_key[2].cspan(),
                                PairwiseKeyPurpose::kMaskSeed, drbg_,
                                k02.span())
                  .ok());
  EXPECT_TRUE(k01 == k10);
  EXPECT_FALSE(k01 == e01);
  EXPECT_FALSE(k01 == k02);
  Key zero;
  EXPECT_FALSE(k01 == zero);
}

TEST_F(KeyAgreementTest, RefusesLowOrderPointsAndBadSizes) {
  if (!KeyAgreementAvailable()) return;
  Key private_key, public_key, out;
  ASSERT_TRUE(X25519KeyPair(drbg_, private_key.span(), public_key.span()).ok());
  // u = 0 and u = 1 are of low order (RFC 7748 §6.1): all-zero secrets.
  Key zero, one;
  one.bytes[0] = std::byte{1};
  EXPECT_EQ(X25519(private_key.cspan(), zero.cspan(), drbg_, out.span()),
            Status::InvalidArgument());
  EXPECT_EQ(X25519(private_key.cspan(), one.cspan(), drbg_, out.span()),
            Status::InvalidArgument());
  EXPECT_FALSE(DerivePairwiseKey(private_key.cspan(), public_key.cspan(),
                                 zero.cspan(), PairwiseKeyPurpose::kMaskSeed,
                                 drbg_, out.span())
                   .ok());
  EXPECT_TRUE(out == zero);
  EXPECT_EQ(X25519(ConstByteSpan(private_key.bytes, kK - 1), public_key.cspan(),
                   drbg_, out.span()),
            Status::InvalidArgument());
  EXPECT_EQ(X25519KeyPair(drbg_, ByteSpan(private_key.bytes, kK - 1),
                          public_key.span()),
            Status::InvalidArgument());
  EXPECT_EQ(DerivePairwiseKey(
                private_key.cspan(), public_key.cspan(), public_key.cspan(),
                static_cast<PairwiseKeyPurpose>(9), drbg_, out.span()),
            Status::InvalidArgument());
  FailingBytes failing;
  EXPECT_FALSE(
      X25519KeyPair(failing, private_key.span(), public_key.span()).ok());
}

}  // namespace
}  // namespace edgeadmm
