// NeighbourTable: one round's SecAgg+ neighbour graph (NeighbourGraph) with
// every device's ring position computed once, for the gateway.
//
// NeighbourGraph answers each question with AES: a device's neighbours cost
// k evaluations of the pseudorandom permutation (each four AES calls or
// more), whether two devices are adjacent two. A device asks for its own
// neighbours once a round; the gateway asks for some device's on every
// request of a phase (the reveal check asks for k devices' neighbours), so
// in a 20-s profile of a secure round of 10,000 devices (k = 26) a sixth of
// its CPU went to AES and the permutation (docs/results.md, "The fleet's
// loop and the gateway's neighbour table"). Here the permutation and
// its inverse are two tables of N entries (8 B a device), built in N
// evaluations when the round starts; the answers are the graph's, exactly
// (tests/unit/aggregator/secure_aggregation/neighbour_table_test.cc).
#pragma once

#include <cstdint>
#include <vector>

#include "edgeadmm/secagg/neighbour_graph.h"
#include "edgeadmm/status.h"

namespace edgeadmm::secure_aggregation {

class NeighbourTable {
 public:
  // Tabulates `graph` (initialised); INVALID_ARGUMENT if it is not.
  Status Init(const NeighbourGraph& graph);

  uint32_t devices() const { return static_cast<uint32_t>(position_.size()); }
  uint32_t degree() const { return degree_; }

  // The neighbours of `device` (< devices()) in increasing order, as
  // NeighbourGraph::Neighbours gives them; empty for another device.
  std::vector<uint32_t> Neighbours(uint32_t device) const;
  // True when a and b are neighbours (a != b, both < devices()).
  bool Adjacent(uint32_t a, uint32_t b) const;

 private:
  std::vector<uint32_t> position_;   // pi(device)
  std::vector<uint32_t> device_at_;  // pi^-1(position)
  uint32_t degree_ = 0;
};

}  // namespace edgeadmm::secure_aggregation
