// A device's answer in the unmasking phase of SecAgg+ (Bell et al., CCS
// 2020, §3; Bonawitz et al., CCS 2017, §4 "Unmasking"): for each neighbour
// that sent it shares, the share of that neighbour's self-mask seed if the
// gateway lists the neighbour as a survivor, else the share of its mask
// private key; never both for one neighbour in one answer.
//
// Checks (what an honest device refuses, whatever the gateway claims):
// the survivor list must be strictly increasing, must name the device
// itself (a device told it dropped answers nothing), and must hold at least
// `min_survivors` devices (the round's threshold: below it the sum of the
// survivors would reveal too little aggregation, and the round aborts).
// Answering one list per round only is the caller's part: it persists the
// list it answered and refuses another (docs/protocol.md, "Secure
// aggregation phases").
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

// Writes one RevealedShare per received message into out[0..received.size())
// (see above). INVALID_ARGUMENT for `out` too short or an unsorted survivor
// list; FAILED_PRECONDITION when own_index is not listed or the list is
// shorter than min_survivors. On error `out` is zeroized.
Status SelectRevealedShares(Span<const ReceivedShares> received,
                            Span<const uint32_t> survivors, uint32_t own_index,
                            size_t min_survivors, Span<RevealedShare> out);

}  // namespace edgeadmm
