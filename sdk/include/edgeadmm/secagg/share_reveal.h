// A device's answer in the unmasking phase of SecAgg+ (Bell et al., CCS
// 2020, §3; Bonawitz et al., CCS 2017, §4 "Unmasking"): for each neighbour
// that sent it shares, the share of that neighbour's self-mask seed if the
// gateway lists the neighbour as a survivor, else the share of its mask
// private key; never both for one neighbour in one answer.
//
// The gateway tells a device only what its answer depends on (SecAgg+
// needs each device's neighbours' fate, not the whole list: O(k) bytes, not
// O(n)): which of the device itself and the neighbours whose shares it
// holds survived, and how many devices survived in all.
//
// Checks (what an honest device refuses, whatever the gateway claims):
// the listed survivors must be strictly increasing, must name the device
// itself (a device told it dropped answers nothing) and otherwise only
// neighbours whose shares it holds, and the count in all must cover the
// list and be at least `min_survivors` (the round's threshold: below it
// the sum of the survivors would reveal too little aggregation, and the
// round aborts). A count is what the gateway says: the device cannot
// verify it (a semi-honest gateway tells the truth), so it is not also
// held against n. Answering one answer per round only
// is the caller's part: it persists the answer it answered and refuses
// another (docs/protocol.md, "Secure aggregation phases").
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/secagg/share_transport.h"
#include "edgeadmm/span.h"
#include "edgeadmm/status.h"

namespace edgeadmm {

// The opened message from one neighbour (OpenShares).
struct ReceivedShares {
  uint32_t sender = 0;
  SharePair shares;
};

// One share the device returns: whose, and which secret it belongs to.
struct RevealedShare {
  uint32_t sender = 0;
  bool self_seed = false;  // true: of the self seed; false: of the mask key
  ShamirShare share;
};

// Phase 3's answer to one device (phase_frames.h).
struct SurvivorAnswer {
  uint32_t survivors = 0;       // devices that sent a masked input, in all
  Span<const uint32_t> listed;  // those among the device and its senders
};

// The round a device answers in.
struct RevealRound {
  uint32_t own_index = 0;
  uint32_t min_survivors = 1;
};

// Writes one RevealedShare per received message into out[0..received.size())
// (see above). INVALID_ARGUMENT for `out` too short, a list that is not
// strictly increasing or names a device that sent no shares, or a count
// in all below the list's; FAILED_PRECONDITION when own_index
// is not listed or the count is below min_survivors. On error `out` is
// zeroized.
Status SelectRevealedShares(Span<const ReceivedShares> received,
                            const SurvivorAnswer& answer,
                            const RevealRound& round, Span<RevealedShare> out);

}  // namespace edgeadmm
