// X25519 (x25519.cc), the larger checks (host only): RFC 7748 §5.2's
// 1,000-iteration vector, and agreement with an independent
// implementation, Mbed TLS's ECP module (the host's Debian Mbed TLS), on
// 2,000 random scalar/u pairs: u drawn from all 2^256 strings (so with the
// top bit set, and values >= p, half the time), then small u, u near p and
// u near 2^255 (the edges of the limb carries and of the final reduction).
// Where Mbed TLS refuses a u (the ladder ends at the point at infinity), the
// SDK must return INVALID_ARGUMENT. The comparison is skipped where the
// Mbed TLS has no Curve25519 (armhf's configuration). Where the compiler
// has a 128-bit integer, X25519 runs on the radix-2^51 field and the
// radix-2^16 one (what 32-bit MCUs run) is compared with it on the same
// inputs, so both representations are held to Mbed TLS here.
#include <cstring>

#include "edgeadmm/drbg.h"
#include "edgeadmm/fake/test_entropy.h"
#include "edgeadmm/secagg/key_agreement.h"
#include "gtest/gtest.h"
#include "mbedtls_x25519.h"
#include "x25519_field16.h"
#include "x25519_field51.h"
#include "x25519_ladder.h"
#include "x25519_scalar.h"

namespace edgeadmm {
namespace {

constexpr size_t kK = kX25519KeyBytes;

// Edge values of u for pair i: small u (i % 4 == 0), u = p + small
// (i % 4 == 1: the unreduced form), u = p - small (i % 4 == 2), u = 2^255 -
// small (i % 4 == 3); "small" from the low byte of the random u.
void EdgeU(int i, unsigned char* u) {
  const unsigned char small = u[0];
  std::memset(u, 0, kK);
  switch (i % 4) {
    case 0:
      u[0] = small;
      break;
    case 1:
      std::memset(u, 0xff, kK);
      u[31] = 0x7f;
      u[0] = static_cast<unsigned char>(0xed + (small % 0x12));
      break;
    case 2:
      std::memset(u, 0xff, kK);
      u[31] = 0x7f;
      u[0] = static_cast<unsigned char>(0xed - (small % 0xed));
      break;
    default:
      std::memset(u, 0xff, kK);
      u[31] = 0x7f;
      u[0] = static_cast<unsigned char>(0xff - small);
      break;
  }
}

class X25519HostTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(drbg_.Init(entropy_, ConstByteSpan()).ok());
  }
  ByteSpan Span(unsigned char* bytes) {
    return ByteSpan(reinterpret_cast<std::byte*>(bytes), kK);
  }
  // Pair i: a random scalar, and a random u for i < 1,000, an edge value
  // (EdgeU) from there on.
  bool DrawPair(int i, unsigned char* scalar, unsigned char* u) {
    if (!drbg_.Generate(Span(scalar)).ok() || !drbg_.Generate(Span(u)).ok()) {
      return false;
    }
    if (i >= 1000) EdgeU(i, u);
    return true;
  }
  ConstByteSpan CSpan(const unsigned char* bytes) {
    return ConstByteSpan(reinterpret_cast<const std::byte*>(bytes), kK);
  }
  TestEntropy entropy_{2550};
  Drbg drbg_;
};

// RFC 7748 §5.2: k = u = 9, then 1,000 times k, u = X25519(k, u), k.
TEST_F(X25519HostTest, Rfc7748ThousandIterations) {
  unsigned char k[kK] = {9};
  unsigned char u[kK] = {9};
  unsigned char next[kK];
  for (int i = 0; i < 1000; ++i) {
    ASSERT_TRUE(X25519(CSpan(k), CSpan(u), drbg_, Span(next)).ok());
    std::memcpy(u, k, kK);
    std::memcpy(k, next, kK);
  }
  static const unsigned char kExpected[kK] = {
      0x68, 0x4c, 0xf5, 0x9b, 0xa8, 0x33, 0x09, 0x55, 0x28, 0x00, 0xef,
      0x56, 0x6f, 0x2f, 0x4d, 0x3c, 0x1c, 0x38, 0x87, 0xc4, 0x93, 0x60,
      0xe3, 0x87, 0x5f, 0x2e, 0xb9, 0x4d, 0x99, 0x53, 0x2c, 0x51};
  EXPECT_EQ(std::memcmp(k, kExpected, kK), 0);
}

TEST_F(X25519HostTest, AgreesWithMbedTlsOnRandomInputs) {
  if (!kMbedTlsHasX25519) {
    GTEST_SKIP() << "this build's Mbed TLS has no Curve25519 (armhf)";
  }
  int compared = 0;
  int refused = 0;
  for (int i = 0; i < 2000; ++i) {
    unsigned char scalar[kK];
    unsigned char u[kK];
    ASSERT_TRUE(DrawPair(i, scalar, u));
    unsigned char ours[kK];
    unsigned char reference[kK];
    const Status status = X25519(CSpan(scalar), CSpan(u), drbg_, Span(ours));
    const int rc = MbedTlsX25519(scalar, u, drbg_, reference);
    if (rc != 0) {
      EXPECT_EQ(status, Status::InvalidArgument()) << "pair " << i;
      ++refused;
      continue;
    }
    bool zero = true;
    for (unsigned char b : reference) zero = zero && b == 0;
    if (zero) {
      EXPECT_EQ(status, Status::InvalidArgument()) << "pair " << i;
      ++refused;
      continue;
    }
    ASSERT_TRUE(status.ok()) << "pair " << i;
    EXPECT_EQ(std::memcmp(ours, reference, kK), 0) << "pair " << i;
    ++compared;
  }
  RecordProperty("compared", compared);
  RecordProperty("refused", refused);
  // The edge cases include u = 0, 1, p, p + 1 (refused) but most pairs
  // must be compared, or the test checks nothing.
  EXPECT_GE(compared, 1900);
}

#if defined(__SIZEOF_INT128__)
// The radix-2^16 ladder (the MCUs') and the radix-2^51 one (this host's)
// give the same bytes on the same clamped scalars and u, the edge values
// included, and both give 0 for the low-order u = 0 and 1.
TEST_F(X25519HostTest, TheTwoFieldRepresentationsAgree) {
  using secagg_internal::Field16;
  using secagg_internal::Field51;
  using secagg_internal::X25519Ladder;
  for (int i = 0; i < 2000; ++i) {
    unsigned char scalar[kK];
    unsigned char u[kK];
    ASSERT_TRUE(DrawPair(i, scalar, u));
    secagg_internal::ClampX25519Scalar(scalar);
    unsigned char wide[kK];
    unsigned char narrow[kK];
    ASSERT_TRUE(X25519Ladder<Field51>(scalar, u, drbg_, wide).ok());
    ASSERT_TRUE(X25519Ladder<Field16>(scalar, u, drbg_, narrow).ok());
    ASSERT_EQ(std::memcmp(wide, narrow, kK), 0) << "pair " << i;
  }
  const unsigned char zero[kK] = {0};
  for (int small = 0; small <= 1; ++small) {
    unsigned char scalar[kK];
    ASSERT_TRUE(drbg_.Generate(Span(scalar)).ok());
    secagg_internal::ClampX25519Scalar(scalar);
    unsigned char u[kK] = {static_cast<unsigned char>(small)};
    unsigned char wide[kK];
    unsigned char narrow[kK];
    ASSERT_TRUE(X25519Ladder<Field51>(scalar, u, drbg_, wide).ok());
    ASSERT_TRUE(X25519Ladder<Field16>(scalar, u, drbg_, narrow).ok());
    EXPECT_EQ(std::memcmp(wide, zero, kK), 0) << "u = " << small;
    EXPECT_EQ(std::memcmp(narrow, zero, kK), 0) << "u = " << small;
  }
}
#endif

}  // namespace
}  // namespace edgeadmm
