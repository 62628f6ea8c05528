// The SecAgg+ neighbour graph (sdk/src/secagg/neighbour_graph.cc): the
// Feistel relabelling is a permutation of 0..n-1 for every n tried, the
// graph is k-regular, symmetric and loop-free, equals the ring Harary graph
// on the relabelled devices, is a function of the seed only, and is
// complete when k >= n - 1. Portable (also runs under QEMU).
#include "edgeadmm/secagg/neighbour_graph.h"

#include <cstddef>
#include <cstdint>

#include "gtest/gtest.h"

namespace edgeadmm {
namespace {

struct Seed {
  std::byte bytes[kGraphSeedBytes] = {};
  explicit Seed(uint8_t v) {
    for (size_t i = 0; i < kGraphSeedBytes; ++i) {
      bytes[i] = static_cast<std::byte>(v + 13 * i);
    }
  }
  ConstByteSpan span() const { return ConstByteSpan(bytes, kGraphSeedBytes); }
};

constexpr uint32_t kMaxN = 300;

TEST(NeighbourGraphTest, RelabellingIsAPermutation) {
  const uint32_t sizes[] = {2, 3, 4, 5, 7, 16, 17, 100, 255, 300};
  for (uint32_t n : sizes) {
    NeighbourGraph graph;
    ASSERT_TRUE(graph.Init(Seed(1).span(), n, n > 3 ? 2 : n - 1).ok()) << n;
    bool seen[kMaxN] = {};
    for (uint32_t i = 0; i < n; ++i) {
      uint32_t p = 0;
      uint32_t back = 0;
      ASSERT_TRUE(graph.Position(i, p).ok());
      ASSERT_LT(p, n);
      EXPECT_FALSE(seen[p]) << "n " << n << " position " << p;
      seen[p] = true;
      ASSERT_TRUE(graph.DeviceAt(p, back).ok());
      EXPECT_EQ(back, i);
    }
  }
}

TEST(NeighbourGraphTest, KRegularSymmetricHararyRing) {
  const uint32_t n = 97;
  const uint32_t k = 8;
  NeighbourGraph graph;
  ASSERT_TRUE(graph.Init(Seed(2).span(), n, k).ok());
  ASSERT_EQ(graph.degree(), k);
  uint32_t degree_count[kMaxN] = {};
  bool relabelled = false;
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t out[k];
    ASSERT_TRUE(graph.Neighbours(i, Span<uint32_t>(out, k)).ok());
    uint32_t pi = 0;
    ASSERT_TRUE(graph.Position(i, pi).ok());
    relabelled = relabelled || pi != i;
    for (uint32_t a = 0; a < k; ++a) {
      EXPECT_NE(out[a], i);
      if (a > 0) {
        EXPECT_LT(out[a - 1], out[a]);  // sorted and distinct
      }
      EXPECT_TRUE(graph.Adjacent(i, out[a]));
      EXPECT_TRUE(graph.Adjacent(out[a], i));
      uint32_t pj = 0;
      ASSERT_TRUE(graph.Position(out[a], pj).ok());
      const uint32_t forward = (pj + n - pi) % n;
      const uint32_t ring = forward < n - forward ? forward : n - forward;
      EXPECT_GE(ring, 1u);
      EXPECT_LE(ring, k / 2);
      ++degree_count[out[a]];
    }
  }
  for (uint32_t i = 0; i < n; ++i) EXPECT_EQ(degree_count[i], k);
  EXPECT_TRUE(relabelled);
  EXPECT_FALSE(graph.Adjacent(3, 3));
}

TEST(NeighbourGraphTest, DependsOnTheSeedOnly) {
  const uint32_t n = 64;
  const uint32_t k = 6;
  NeighbourGraph a, b, c;
  ASSERT_TRUE(a.Init(Seed(5).span(), n, k).ok());
  ASSERT_TRUE(b.Init(Seed(5).span(), n, k).ok());
  ASSERT_TRUE(c.Init(Seed(6).span(), n, k).ok());
  uint32_t differ = 0;
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t na[k], nb[k], nc[k];
    ASSERT_TRUE(a.Neighbours(i, Span<uint32_t>(na, k)).ok());
    ASSERT_TRUE(b.Neighbours(i, Span<uint32_t>(nb, k)).ok());
    ASSERT_TRUE(c.Neighbours(i, Span<uint32_t>(nc, k)).ok());
    for (uint32_t j = 0; j < k; ++j) {
      EXPECT_EQ(na[j], nb[j]);
      differ += na[j] != nc[j] ? 1 : 0;
    }
  }
  EXPECT_GT(differ, n);  // another seed, another graph
}

TEST(NeighbourGraphTest, CompleteWhenKReachesNMinusOne) {
  NeighbourGraph graph;
  ASSERT_TRUE(graph.Init(Seed(3).span(), 5, 30).ok());
  EXPECT_EQ(graph.degree(), 4u);
  uint32_t out[4];
  ASSERT_TRUE(graph.Neighbours(2, Span<uint32_t>(out, 4)).ok());
  const uint32_t expected[4] = {0, 1, 3, 4};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(out[i], expected[i]);
  ASSERT_TRUE(graph.Init(Seed(3).span(), 6, 5).ok());  // odd k = n - 1
  EXPECT_EQ(graph.degree(), 5u);
}

TEST(NeighbourGraphTest, RefusesBadParameters) {
  NeighbourGraph graph;
  const Seed seed(4);
  EXPECT_EQ(graph.Init(ConstByteSpan(seed.bytes, 31), 10, 4),
            Status::InvalidArgument());
  EXPECT_EQ(graph.Init(seed.span(), 1, 4), Status::InvalidArgument());
  EXPECT_EQ(graph.Init(seed.span(), 10, 0), Status::InvalidArgument());
  EXPECT_EQ(graph.Init(seed.span(), 10, 3), Status::InvalidArgument());
  EXPECT_EQ(graph.Init(seed.span(), 1000, 256), Status::InvalidArgument());
  EXPECT_EQ(graph.Init(seed.span(), 300, 299), Status::InvalidArgument());
  uint32_t p = 0;
  EXPECT_EQ(graph.Position(0, p), Status::InvalidArgument());  // no Init
  ASSERT_TRUE(graph.Init(seed.span(), 10, 4).ok());
  EXPECT_EQ(graph.Position(10, p), Status::InvalidArgument());
  EXPECT_EQ(graph.DeviceAt(10, p), Status::InvalidArgument());
  uint32_t out[3];
  EXPECT_EQ(graph.Neighbours(0, Span<uint32_t>(out, 3)),
            Status::InvalidArgument());
}

}  // namespace
}  // namespace edgeadmm
