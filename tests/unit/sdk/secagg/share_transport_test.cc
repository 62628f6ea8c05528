// Sealed Shamir shares (sdk/src/secagg/share_transport.cc): a round trip
// gives the shares back; every single flipped bit of a sealed message, a
// wrong key, and a message opened for another round, sender or receiver
// are refused with DATA_LOSS; bad arguments are refused. Portable: on bare
// metal Mbed TLS's cipher layer allocates from platform/dtls's static pool.
#include "edgeadmm/secagg/share_transport.h"

#include <cstring>

#include "gtest/gtest.h"
#if EDGEADMM_TEST_DTLS_POOL
#include "edgeadmm/dtls/dtls_memory_pool.h"
#endif

namespace edgeadmm {
namespace {

class ShareTransportTest : public ::testing::Test {
 protected:
  void SetUp() override {
#if EDGEADMM_TEST_DTLS_POOL
    dtls::StartDtlsMemoryPool();  // bare metal: Mbed TLS's only allocator
#endif
    for (size_t i = 0; i < 32; ++i) {
      key_[i] = static_cast<std::byte>(3 * i + 1);
      other_key_[i] = key_[i];
      shares_.self_seed.value[i] = static_cast<std::byte>(i);
      shares_.mask_key.value[i] = static_cast<std::byte>(200 - i);
    }
    other_key_[31] ^= std::byte{1};
    shares_.self_seed.index = 7;
    shares_.mask_key.index = 7;
  }
  ConstByteSpan key() const { return ConstByteSpan(key_, 32); }
  ByteSpan sealed() { return ByteSpan(sealed_, kSealedSharesBytes); }
  ConstByteSpan csealed() const {
    return ConstByteSpan(sealed_, kSealedSharesBytes);
  }
  static bool Same(const SharePair& a, const SharePair& b) {
    return a.self_seed.index == b.self_seed.index &&
           a.mask_key.index == b.mask_key.index &&
           std::memcmp(a.self_seed.value, b.self_seed.value, 32) == 0 &&
           std::memcmp(a.mask_key.value, b.mask_key.value, 32) == 0;
  }
  static bool Zero(const SharePair& a) { return Same(a, SharePair{}); }

  std::byte key_[32];
  std::byte other_key_[32];
  std::byte sealed_[kSealedSharesBytes];
  SharePair shares_;
  const ShareAddress address_{42, 3, 9};
};

TEST_F(ShareTransportTest, RoundTrip) {
  ASSERT_TRUE(SealShares(key(), address_, shares_, sealed()).ok());
  // The shares are not in the clear.
  for (size_t at = 0; at + 32 <= kSealedSharesBytes; ++at) {
    EXPECT_NE(std::memcmp(sealed_ + at, shares_.self_seed.value, 32), 0);
  }
  SharePair opened;
  ASSERT_TRUE(OpenShares(key(), address_, csealed(), opened).ok());
  EXPECT_TRUE(Same(opened, shares_));
}

TEST_F(ShareTransportTest, EveryFlippedBitIsRefused) {
  ASSERT_TRUE(SealShares(key(), address_, shares_, sealed()).ok());
  for (size_t byte = 0; byte < kSealedSharesBytes; ++byte) {
    const int bit = static_cast<int>(byte % 8);
    sealed_[byte] ^= static_cast<std::byte>(1 << bit);
    SharePair opened;
    EXPECT_EQ(OpenShares(key(), address_, csealed(), opened),
              Status::DataLoss())
        << byte;
    EXPECT_TRUE(Zero(opened));
    sealed_[byte] ^= static_cast<std::byte>(1 << bit);
  }
  SharePair opened;
  EXPECT_TRUE(OpenShares(key(), address_, csealed(), opened).ok());
}

TEST_F(ShareTransportTest, BoundToKeyRoundSenderAndReceiver) {
  ASSERT_TRUE(SealShares(key(), address_, shares_, sealed()).ok());
  SharePair opened;
  EXPECT_EQ(
      OpenShares(ConstByteSpan(other_key_, 32), address_, csealed(), opened),
      Status::DataLoss());
  const ShareAddress wrong[] = {{43, 3, 9}, {42, 4, 9}, {42, 3, 8}, {42, 9, 3}};
  for (const ShareAddress& a : wrong) {
    EXPECT_EQ(OpenShares(key(), a, csealed(), opened), Status::DataLoss());
    EXPECT_TRUE(Zero(opened));
  }
}

TEST_F(ShareTransportTest, RefusesBadArguments) {
  EXPECT_EQ(SealShares(ConstByteSpan(key_, 16), address_, shares_, sealed()),
            Status::InvalidArgument());
  EXPECT_EQ(SealShares(key(), {1, 5, 5}, shares_, sealed()),
            Status::InvalidArgument());
  EXPECT_EQ(SealShares(key(), address_, shares_,
                       ByteSpan(sealed_, kSealedSharesBytes - 1)),
            Status::InvalidArgument());
  SharePair mismatched = shares_;
  mismatched.mask_key.index = 8;
  EXPECT_EQ(SealShares(key(), address_, mismatched, sealed()),
            Status::InvalidArgument());
  SharePair opened;
  EXPECT_EQ(OpenShares(key(), address_,
                       ConstByteSpan(sealed_, kSealedSharesBytes - 1), opened),
            Status::InvalidArgument());
}

}  // namespace
}  // namespace edgeadmm
