// NeighbourTable gives the gateway exactly the answers of the graph it
// tabulates: every device's neighbours and every pair's adjacency, for
// rings of several sizes and degrees and the complete graph; a table of a
// different graph (another seed) would differ, and so fails the check.
#include "edgeadmm/secure_aggregation/neighbour_table.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <vector>

namespace edgeadmm::secure_aggregation {
namespace {

std::array<std::byte, kGraphSeedBytes> Seed(uint8_t first) {
  std::array<std::byte, kGraphSeedBytes> seed{};
  for (size_t i = 0; i < seed.size(); ++i) {
    seed[i] = static_cast<std::byte>(first + 7 * i);
  }
  return seed;
}

// The number of devices whose neighbours or adjacencies differ between
// `table` and `graph` (adjacency checked against every other device for
// n <= 64, else against the device's ring neighbours and a few others).
size_t Differences(const NeighbourTable& table, const NeighbourGraph& graph) {
  size_t differ = 0;
  const uint32_t n = graph.devices();
  std::vector<uint32_t> expected(graph.degree());
  for (uint32_t d = 0; d < n; ++d) {
    bool same =
        graph.Neighbours(d, Span<uint32_t>(expected.data(), expected.size()))
            .ok() &&
        table.Neighbours(d) == expected;
    const uint32_t others = n <= 64 ? n : 16;
    for (uint32_t j = 0; j < others && same; ++j) {
      const uint32_t e = n <= 64 ? j : (d + j * 97) % n;
      same = table.Adjacent(d, e) == graph.Adjacent(d, e);
    }
    for (uint32_t e : expected) {
      same = same && table.Adjacent(d, e) && table.Adjacent(e, d);
    }
    differ += same ? 0 : 1;
  }
  return differ;
}

TEST(NeighbourTableTest, AnswersAsTheGraphDoes) {
  struct Case {
    uint32_t devices, degree;
    uint8_t seed;
  };
  for (const Case& c :
       {Case{2, 1, 1}, Case{5, 4, 2}, Case{7, 2, 3}, Case{33, 8, 4},
        Case{64, 30, 5}, Case{1000, 26, 6}, Case{4099, 28, 7}}) {
    const auto seed = Seed(c.seed);
    NeighbourGraph graph;
    ASSERT_TRUE(
        graph.Init(ConstByteSpan(seed.data(), seed.size()), c.devices, c.degree)
            .ok());
    NeighbourTable table;
    ASSERT_TRUE(table.Init(graph).ok());
    EXPECT_EQ(table.devices(), c.devices);
    EXPECT_EQ(table.degree(), graph.degree());
    EXPECT_EQ(Differences(table, graph), 0u)
        << "n = " << c.devices << ", k = " << c.degree;
  }
}

TEST(NeighbourTableTest, TheCheckFailsForAnotherGraph) {
  const auto seed = Seed(1);
  const auto other = Seed(2);
  NeighbourGraph graph;
  NeighbourGraph other_graph;
  ASSERT_TRUE(
      graph.Init(ConstByteSpan(seed.data(), seed.size()), 200, 10).ok());
  ASSERT_TRUE(
      other_graph.Init(ConstByteSpan(other.data(), other.size()), 200, 10)
          .ok());
  NeighbourTable table;
  ASSERT_TRUE(table.Init(other_graph).ok());
  EXPECT_GT(Differences(table, graph), 150u);
}

TEST(NeighbourTableTest, RefusesAnUninitialisedGraphAndBadDevices) {
  NeighbourGraph graph;
  NeighbourTable table;
  EXPECT_EQ(table.Init(graph), Status::InvalidArgument());
  const auto seed = Seed(3);
  ASSERT_TRUE(graph.Init(ConstByteSpan(seed.data(), seed.size()), 10, 4).ok());
  ASSERT_TRUE(table.Init(graph).ok());
  EXPECT_TRUE(table.Neighbours(10).empty());
  EXPECT_FALSE(table.Adjacent(3, 3));
  EXPECT_FALSE(table.Adjacent(3, 10));
}

}  // namespace
}  // namespace edgeadmm::secure_aggregation
