// X25519 + HKDF-SHA256 pairwise keys: RFC 7748's vectors (§5.2 and §6.1),
// the blinding changes nothing, both sides of a pair derive one key, the
// purposes and the pairs are separated, the low-order points of the curve
// and its twist (also written as u >= p) and bad sizes refused, and the
// keys of RFC 7748's pair against HKDF computed independently. Portable; on
// bare metal it checks that X25519 takes nothing from the static pool of
// platform/dtls, Mbed TLS's allocator there. The 1,000-iteration vector and
// the comparison with Mbed TLS's ECP are in x25519_host_test.cc.
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

// RFC 7748 §5.2: two scalar/u pairs (the second u has its top bit set),
// and one iteration of k, u = X25519(k, u), k from k = u = 9.
TEST_F(KeyAgreementTest, Rfc7748FunctionVectors) {
  Key out;
  ASSERT_TRUE(X25519(Key("a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a"
                         "2244ba449ac4")
                         .cspan(),
                     Key("e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a9"
                         "03a6d0ab1c4c")
                         .cspan(),
                     drbg_, out.span())
                  .ok());
  EXPECT_TRUE(out == Key("c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4"
                         "075577a28552"));
  ASSERT_TRUE(X25519(Key("4b66e9d4d1b4673c5ad22691957d6af5c11b6421e0ea01d42ca4"
                         "169e7918ba0d")
                         .cspan(),
                     Key("e5210f12786811d3f4b7959d0538ae2c31dbe7106fc03c3efc4c"
                         "d549c715a493")
                         .cspan(),
                     drbg_, out.span())
                  .ok());
  EXPECT_TRUE(out == Key("95cbde9476e8907d7aade45cb4b873f88b595a68799fa152e6f8"
                         "f7647aac7957"));
  Key nine;
  nine.bytes[0] = std::byte{9};
  ASSERT_TRUE(X25519(nine.cspan(), nine.cspan(), drbg_, out.span()).ok());
  EXPECT_TRUE(out == Key("422c8e7a6227d7bca1350b3e2bb7279f7897b87bb6854b783c60"
                         "e80311ae3079"));
}

// The blinding draws from the random source but does not change the
// result; a failing source is an error with `out` zeroized.
TEST_F(KeyAgreementTest, BlindingDoesNotChangeTheResult) {
  Drbg other;
  TestEntropy other_entropy{20261130};
  ASSERT_TRUE(other.Init(other_entropy, ConstByteSpan()).ok());
  Key a, b;
  ASSERT_TRUE(X25519(Key(kAlicePrivate).cspan(), Key(kBobPublic).cspan(), drbg_,
                     a.span())
                  .ok());
  ASSERT_TRUE(X25519(Key(kAlicePrivate).cspan(), Key(kBobPublic).cspan(), other,
                     b.span())
                  .ok());
  EXPECT_TRUE(a == b);
  EXPECT_TRUE(a == Key(kShared));
  FailingBytes failing;
  EXPECT_EQ(X25519(Key(kAlicePrivate).cspan(), Key(kBobPublic).cspan(), failing,
                   a.span()),
            Status::Internal());
  EXPECT_TRUE(a == Key());
}

TEST_F(KeyAgreementTest, Rfc7748DiffieHellmanVector) {
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
// Bare metal: X25519 allocates nothing from the firmware's Mbed TLS pool
// (platform/dtls, dtls_memory_pool.h); HKDF-SHA256 may (Mbed TLS's MD
// context), and frees what it takes.
TEST_F(KeyAgreementTest, X25519TakesNothingFromThePool) {
  const size_t before = dtls::DtlsPoolHighWater();
  Key shared;
  ASSERT_TRUE(X25519(Key(kAlicePrivate).cspan(), Key(kBobPublic).cspan(), drbg_,
                     shared.span())
                  .ok());
  EXPECT_TRUE(shared == Key(kShared));
  EXPECT_EQ(dtls::DtlsPoolHighWater(), before);
  Key key;
  ASSERT_TRUE(
      DerivePairwiseKey(Key(kAlicePrivate).cspan(), Key(kAlicePublic).cspan(),
                        Key(kBobPublic).cspan(), PairwiseKeyPurpose::kMaskSeed,
                        drbg_, key.span())
          .ok());
  EDGEADMM_LOG_INFO("pairwise key pool high water: %u of %u bytes",
                    static_cast<unsigned>(dtls::DtlsPoolHighWater()),
                    static_cast<unsigned>(dtls::DtlsPoolBytes()));
  EXPECT_LE(dtls::DtlsPoolHighWater(), dtls::DtlsPoolBytes());
}
#endif

// RFC 7748 §5: the top bit of u is masked, so u and u + 2^255 agree.
TEST_F(KeyAgreementTest, TopBitOfUIsIgnored) {
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

// The keys of RFC 7748 §6.1's Alice and Bob, against HKDF-SHA256 (RFC
// 5869: no salt, one 32-byte block) of their shared secret computed
// independently (Python's hmac and hashlib), for each purpose, from both
// sides.
TEST_F(KeyAgreementTest, PairwiseKeysOfRfc7748KeysAreHkdfSha256) {
  const Key expected[2] = {
      Key("baed1c4d35822961d54d50c3f57ba94c210bfc3d8005f015c36d32f1a68d55d1"),
      Key("01e751085c0f956d6047cb4082afd6843ba68851dff185fad667c38a712a077a")};
  const PairwiseKeyPurpose purposes[2] = {PairwiseKeyPurpose::kMaskSeed,
                                          PairwiseKeyPurpose::kShareEncryption};
  for (int p = 0; p < 2; ++p) {
    Key alice, bob;
    ASSERT_TRUE(DerivePairwiseKey(
                    Key(kAlicePrivate).cspan(), Key(kAlicePublic).cspan(),
                    Key(kBobPublic).cspan(), purposes[p], drbg_, alice.span())
                    .ok());
    ASSERT_TRUE(DerivePairwiseKey(
                    Key(kBobPrivate).cspan(), Key(kBobPublic).cspan(),
                    Key(kAlicePublic).cspan(), purposes[p], drbg_, bob.span())
                    .ok());
    EXPECT_TRUE(alice == expected[p]) << p;
    EXPECT_TRUE(bob == expected[p]) << p;
  }
}

TEST_F(KeyAgreementTest, RefusesLowOrderPointsAndBadSizes) {
  Key private_key, public_key, out;
  ASSERT_TRUE(X25519KeyPair(drbg_, private_key.span(), public_key.span()).ok());
  // The points of order dividing 8 on the curve and its twist give
  // all-zero secrets (RFC 7748 §6.1): u = 0, 1, the two of order 8, p - 1,
  // and p, p + 1 (0 and 1 written unreduced, which §5 says to accept).
  Key zero, one;
  one.bytes[0] = std::byte{1};
  EXPECT_EQ(X25519(private_key.cspan(), zero.cspan(), drbg_, out.span()),
            Status::InvalidArgument());
  EXPECT_EQ(X25519(private_key.cspan(), one.cspan(), drbg_, out.span()),
            Status::InvalidArgument());
  const char* const kLowOrder[] = {
      "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800",
      "5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157",
      "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
      "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
      "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"};
  for (const char* u : kLowOrder) {
    out.bytes[0] = std::byte{1};
    EXPECT_EQ(X25519(private_key.cspan(), Key(u).cspan(), drbg_, out.span()),
              Status::InvalidArgument())
        << u;
    EXPECT_TRUE(out == zero) << u;
  }
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
