// The neighbour graph of SecAgg+ (Bell et al., "Secure single-server
// aggregation with (poly)logarithmic overhead", CCS 2020, §3-4): each of the
// n devices of a round masks its input only with its k neighbours and
// Shamir-shares its secrets only among them, so its cost grows with k =
// O(log n), not n.
//
// Graph: a Harary graph H(k, n) on randomly relabelled devices (our choice of
// k-regular graph; Bell et al. show k = O(log n) suffices for a random graph,
// and the bounds for this one are computed directly in parameters.h, below):
// device i sits at ring position pi(i), and its neighbours are the devices at
// positions pi(i) +- 1, ..., +- k/2 (mod n), so the graph is k-regular and
// k-connected. pi is a pseudorandom permutation of {0, ..., n-1} computed
// without a table: a 4-round Feistel network (Luby-Rackoff) on 2h bits, 2^(2h)
// >= n, whose round function is AES-256 keyed with the round's public graph
// seed, with cycle-walking back into [0, n) (Black and Rogaway, CT-RSA 2002). A
// device computes its own neighbours in O(k) AES calls and O(1) memory, and the
// gateway derives the same graph from the same seed. When k >= n - 1 the graph
// is complete (the original SecAgg of Bonawitz et al., CCS 2017).
//
// Why the relabelling matters: for a fixed device, its neighbours are then
// a uniformly random k-subset of the others (over the seed), which is what
// the choice of k and of the share threshold in
// aggregator/secure_aggregation/include/edgeadmm/secure_aggregation/
// parameters.h assumes. The seed must be drawn after the set of devices
// (and so the corrupt ones) is fixed: the gateway announces it with the
// round. Parameters: n in 2..2^31, k even and 2 <= k, or k >= n - 1.
//
// No heap; the AES context lives in the object (not copyable).
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/span.h"
#include "edgeadmm/status.h"
#include "mbedtls/aes.h"

namespace edgeadmm {

constexpr size_t kGraphSeedBytes = 32;
// At most 254 neighbours: their Shamir share indices are 1..k (shamir.h).
constexpr uint32_t kSecAggMaxNeighbours = 254;

class NeighbourGraph {
 public:
  NeighbourGraph();
  ~NeighbourGraph();
  NeighbourGraph(const NeighbourGraph&) = delete;
  NeighbourGraph& operator=(const NeighbourGraph&) = delete;

  // INVALID_ARGUMENT for a seed of another size than kGraphSeedBytes,
  // n < 2 or n > 2^31, an odd k < n - 1, k = 0, or a degree above
  // kSecAggMaxNeighbours; INTERNAL if Mbed TLS fails.
  Status Init(ConstByteSpan seed, uint32_t devices, uint32_t degree);

  uint32_t devices() const { return devices_; }
  // The number of neighbours of every device: min(k, n - 1).
  uint32_t degree() const { return degree_; }

  // The ring position pi(device) and its inverse. INVALID_ARGUMENT for an
  // argument >= n (or before Init).
  Status Position(uint32_t device, uint32_t& position) const;
  Status DeviceAt(uint32_t position, uint32_t& device) const;

  // The neighbours of `device` in increasing order into out[0..degree()).
  // INVALID_ARGUMENT for device >= n or `out` shorter than degree().
  Status Neighbours(uint32_t device, Span<uint32_t> out) const;

  // True when a and b are neighbours (a != b).
  bool Adjacent(uint32_t a, uint32_t b) const;

 private:
  uint32_t Round(uint32_t round, uint32_t half) const;
  uint32_t Encrypt(uint32_t x) const;
  uint32_t Decrypt(uint32_t x) const;
  uint32_t Walk(uint32_t x, bool forward) const;  // pi or its inverse

  mbedtls_aes_context aes_;
  uint32_t devices_ = 0;
  uint32_t degree_ = 0;
  uint32_t half_bits_ = 0;
  bool ready_ = false;
};

}  // namespace edgeadmm
