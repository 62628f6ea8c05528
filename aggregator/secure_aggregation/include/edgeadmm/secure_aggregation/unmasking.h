// The gateway's last SecAgg+ step (Bell et al., CCS 2020, §3; Bonawitz et
// al., CCS 2017, §4 "Unmasking"): from the masked inputs y_i of the
// survivors (sdk/include/edgeadmm/secagg/masked_input.h), the survivors'
// self-mask seeds b_i and the dropped devices' mask private keys (both
// reconstructed from Shamir shares the survivors return), the sum
//   sum_{i survived} x_i = sum y_i - sum PRG(b_i)
//        - sum_{d dropped} sum_{j in N(d) survived} sign_j(d) PRG(s_dj)
// mod 2^bits, where sign_j(d) = PairwiseMaskSign(j, d) is the sign j used.
// Pairwise masks between two survivors cancel in the sum.
//
// Devices that are neither survivors nor dropped never completed the share
// phase: no survivor masked with them (the device SDK masks only with the
// neighbours it received shares from), so they are ignored.
//
// Checks (the semi-honest gateway's own defence against a wrong or
// tampered share, which Shamir does not detect): a reconstructed self seed
// must match the commitment the device announced (CommitSelfSeed), and a
// reconstructed mask private key must give the announced mask public key
// (X25519(sk, 9)); DATA_LOSS otherwise, with the device named in
// `failed_device`. Host code (the STL is used freely).
#pragma once

#include <cstdint>
#include <vector>

#include "edgeadmm/random_byte_source.h"
#include "edgeadmm/secagg/neighbour_graph.h"
#include "edgeadmm/span.h"
#include "edgeadmm/status.h"

namespace edgeadmm::secure_aggregation {

struct Survivor {
  uint32_t index = 0;
  Span<const uint32_t> masked;  // y_i, length = the sum's
  ConstByteSpan self_seed;      // b_i, reconstructed
  ConstByteSpan self_seed_commitment;
  ConstByteSpan mask_public;  // announced in the advertise phase
};

struct Dropped {
  uint32_t index = 0;
  ConstByteSpan mask_private;  // reconstructed
  ConstByteSpan mask_public;   // announced
};

struct UnmaskRequest {
  uint64_t round_id = 0;
  uint32_t bits = 32;
  const NeighbourGraph* graph = nullptr;
  Span<const Survivor> survivors;
  Span<const Dropped> dropped;
};

// Writes sum x_i mod 2^bits into `sum`. INVALID_ARGUMENT for bits outside
// 1..32, no graph, an index outside the graph or listed twice, a masked
// vector of another length than `sum`, or wrong key sizes; DATA_LOSS for a
// secret that fails its check (see above; `failed_device` names it when
// given). On error `sum` is zeroized.
Status UnmaskSum(const UnmaskRequest& request, RandomByteSource& random,
                 Span<uint32_t> sum, uint32_t* failed_device = nullptr);

}  // namespace edgeadmm::secure_aggregation
