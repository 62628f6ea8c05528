// The SecAgg+ masked input (sdk/src/secagg/masked_input.cc): over a
// Harary neighbour graph, the masked inputs of all devices sum to the plain
// sum mod 2^bits for several moduli; a masked input differs from its input
// in almost every word; bad inputs are refused and leave zeros; the
// self-seed commitment is bound to round and device. Portable: X25519's
// bignums use platform/dtls's static pool on bare metal.
#include "edgeadmm/secagg/masked_input.h"

#include <cstring>

#include "edgeadmm/drbg.h"
#include "edgeadmm/fake/test_entropy.h"
#include "edgeadmm/secagg/key_agreement.h"
#include "edgeadmm/secagg/mask_prg.h"
#include "edgeadmm/secagg/neighbour_graph.h"
#include "gtest/gtest.h"
#if EDGEADMM_TEST_DTLS_POOL
#include "edgeadmm/dtls/dtls_memory_pool.h"
#endif

namespace edgeadmm {
namespace {

constexpr uint32_t kDevices = 7;
constexpr uint32_t kDegree = 4;
constexpr size_t kLength = 21;

struct Device {
  std::byte self_seed[32];
  std::byte mask_private[32];
  std::byte mask_public[32];
  uint32_t x[kLength];
  uint32_t y[kLength];
};

class MaskedInputTest : public ::testing::Test {
 protected:
  void SetUp() override {
#if EDGEADMM_TEST_DTLS_POOL
    dtls::StartDtlsMemoryPool();  // bare metal: Mbed TLS's only allocator
#endif
    ASSERT_TRUE(drbg_.Init(entropy_, ConstByteSpan()).ok());
    std::byte seed[kGraphSeedBytes] = {std::byte{0x5a}};
    ASSERT_TRUE(
        graph_.Init(ConstByteSpan(seed, sizeof(seed)), kDevices, kDegree).ok());
    for (Device& d : devices_) {
      ASSERT_TRUE(drbg_.Generate(ByteSpan(d.self_seed, 32)).ok());
      ASSERT_TRUE(X25519KeyPair(drbg_, ByteSpan(d.mask_private, 32),
                                ByteSpan(d.mask_public, 32))
                      .ok());
    }
  }

  // Device i's masked input of x (each < 2^bits).
  Status Mask(uint32_t i, uint32_t bits, uint64_t round) {
    Device& d = devices_[i];
    uint32_t ids[kDegree];
    const Status listed = graph_.Neighbours(i, Span<uint32_t>(ids, kDegree));
    if (!listed.ok()) return listed;
    SecAggPeerKey peers[kDegree];
    for (uint32_t a = 0; a < kDegree; ++a) {
      peers[a] = {ids[a], ConstByteSpan(devices_[ids[a]].mask_public, 32)};
    }
    std::memcpy(d.y, d.x, sizeof(d.x));
    MaskInputParams p;
    p.round_id = round;
    p.own_index = i;
    p.bits = bits;
    p.self_seed = ConstByteSpan(d.self_seed, 32);
    p.mask_private = ConstByteSpan(d.mask_private, 32);
    p.mask_public = ConstByteSpan(d.mask_public, 32);
    p.neighbours = Span<const SecAggPeerKey>(peers, kDegree);
    p.random = &drbg_;
    return MaskInput(p, Span<uint32_t>(d.y, kLength));
  }

  TestEntropy entropy_{33};
  Drbg drbg_;
  NeighbourGraph graph_;
  Device devices_[kDevices];
};

TEST_F(MaskedInputTest, PairwiseMasksCancelInTheSum) {
  const uint32_t moduli[] = {32, 20, 1};
  for (uint32_t bits : moduli) {
    const uint32_t mask = bits == 32 ? 0xFFFFFFFFu : (1u << bits) - 1;
    uint32_t plain[kLength] = {};
    uint32_t masked[kLength] = {};
    for (uint32_t i = 0; i < kDevices; ++i) {
      for (size_t w = 0; w < kLength; ++w) {
        devices_[i].x[w] = (0x9e3779b9u * (i + 1) + 7919u * w) & mask;
        plain[w] += devices_[i].x[w];
      }
      ASSERT_TRUE(Mask(i, bits, 5).ok());
      for (size_t w = 0; w < kLength; ++w) {
        ASSERT_LE(devices_[i].y[w], mask);
        masked[w] += devices_[i].y[w];
      }
    }
    uint32_t same = 0;
    for (size_t w = 0; w < kLength; ++w) {
      // What remains is the self masks: remove them as the gateway does.
      if (bits >= 20) {
        EXPECT_NE(masked[w] & mask, plain[w] & mask);
      }
      same += devices_[0].y[w] == devices_[0].x[w] ? 1 : 0;
    }
    if (bits >= 20) {
      EXPECT_EQ(same, 0u);
    }
    uint32_t self_total[kLength] = {};
    for (Device& d : devices_) {
      uint32_t self[kLength];
      ASSERT_TRUE(ExpandMask(ConstByteSpan(d.self_seed, 32),
                             {5, MaskPurpose::kSelf},
                             Span<uint32_t>(self, kLength))
                      .ok());
      for (size_t w = 0; w < kLength; ++w) self_total[w] += self[w];
    }
    for (size_t w = 0; w < kLength; ++w) {
      EXPECT_EQ((masked[w] - self_total[w]) & mask, plain[w] & mask);
    }
  }
}

TEST_F(MaskedInputTest, RefusesBadInputAndLeavesZeros) {
  for (size_t w = 0; w < kLength; ++w) devices_[0].x[w] = 1u << 20;
  EXPECT_EQ(Mask(0, 20, 1), Status::InvalidArgument());  // x >= 2^bits
  for (size_t w = 0; w < kLength; ++w) EXPECT_EQ(devices_[0].y[w], 0u);
  EXPECT_EQ(Mask(0, 33, 1), Status::InvalidArgument());
  EXPECT_EQ(Mask(0, 0, 1), Status::InvalidArgument());
  uint32_t values[2] = {1, 2};
  SecAggPeerKey twice[2] = {{1, ConstByteSpan(devices_[1].mask_public, 32)},
                            {1, ConstByteSpan(devices_[1].mask_public, 32)}};
  MaskInputParams p;
  p.self_seed = ConstByteSpan(devices_[0].self_seed, 32);
  p.mask_private = ConstByteSpan(devices_[0].mask_private, 32);
  p.mask_public = ConstByteSpan(devices_[0].mask_public, 32);
  p.neighbours = Span<const SecAggPeerKey>(twice, 2);
  p.random = &drbg_;
  EXPECT_EQ(MaskInput(p, Span<uint32_t>(values, 2)), Status::InvalidArgument());
  EXPECT_EQ(values[0], 0u);
  twice[1].index = 0;  // own index
  values[0] = 1;
  EXPECT_EQ(MaskInput(p, Span<uint32_t>(values, 2)), Status::InvalidArgument());
  // A low-order neighbour key fails in the key agreement: zeros again.
  std::byte zero_key[32] = {};
  SecAggPeerKey bad[1] = {{1, ConstByteSpan(zero_key, 32)}};
  p.neighbours = Span<const SecAggPeerKey>(bad, 1);
  values[0] = 1;
  EXPECT_EQ(MaskInput(p, Span<uint32_t>(values, 2)), Status::InvalidArgument());
  EXPECT_EQ(values[0], 0u);
}

TEST_F(MaskedInputTest, CommitmentIsBoundToRoundAndDevice) {
  std::byte seed[32] = {std::byte{1}};
  std::byte a[32], b[32], c[32], d[32];
  ASSERT_TRUE(
      CommitSelfSeed(7, 1, ConstByteSpan(seed, 32), ByteSpan(a, 32)).ok());
  ASSERT_TRUE(
      CommitSelfSeed(7, 1, ConstByteSpan(seed, 32), ByteSpan(b, 32)).ok());
  ASSERT_TRUE(
      CommitSelfSeed(8, 1, ConstByteSpan(seed, 32), ByteSpan(c, 32)).ok());
  ASSERT_TRUE(
      CommitSelfSeed(7, 2, ConstByteSpan(seed, 32), ByteSpan(d, 32)).ok());
  EXPECT_EQ(std::memcmp(a, b, 32), 0);
  EXPECT_NE(std::memcmp(a, c, 32), 0);
  EXPECT_NE(std::memcmp(a, d, 32), 0);
  EXPECT_EQ(CommitSelfSeed(7, 1, ConstByteSpan(seed, 31), ByteSpan(a, 32)),
            Status::InvalidArgument());
}

}  // namespace
}  // namespace edgeadmm
