// The gateway's state machine of one SecAgg+ round (Bell et al., CCS 2020,
// §3; Bonawitz et al., CCS 2017, §4), phases as docs/protocol.md, "Secure
// aggregation phases", designs them. Pure C++17, no network and no store:
// the caller (the CoAP server, in a later slice) feeds each device's
// messages and closes each phase on its deadline.
//
//   0. Init: round id, cohort n (devices 0..n-1), degree k, threshold s,
//      bits b, graph seed, mask length m, and the survivor floor.
//   1. Advertise (two X25519 public keys and the self-seed commitment);
//      CloseAdvertise; NeighbourKeys(i): the keys of i's neighbours that
//      advertised (A1).
//   2. SubmitShares: exactly one sealed message per graph neighbour in A1,
//      from a device in A1 with at least s such neighbours; CloseShareKeys
//      (U2 = the devices whose messages were accepted); SharesFor(i): the
//      messages senders in U2 addressed to i in U2.
//   3. SubmitMaskedInput (m words, each < 2^b, from U2); CloseMaskedInput:
//      U3 = the senders; the round aborts unless |U3| >= the floor and
//      every d in U2 has >= s neighbours in U3 (the holders of d's shares
//      that can answer). Survivors(): U3, increasing; SurvivorsFor(i):
//      |U3| and, increasing, U3 among i and the senders of SharesFor(i),
//      all i needs to answer phase 4 (O(k), not O(n)).
//   4. SubmitRevealedShares (from U3): exactly one share per neighbour in
//      U2, of the self seed for a neighbour in U3 and of the mask key
//      otherwise (never both); CloseUnmasking reconstructs the secrets
//      (aborts when one has < s shares), UnmaskSum, and returns
//      sum_{i in U3} x_i mod 2^b. Reconstructed secrets exist only
//      inside that call and are wiped.
//
// Every message is checked once, on arrival, in this order: the phase
// (FAILED_PRECONDITION naming both phases; a closed phase is closed), the
// cohort and the previous phases (FAILED_PRECONDITION), one message per
// device and phase (an identical resend is OK and stored once, a different
// one ALREADY_EXISTS; compared, never stored), the device's byte budget
// (RESOURCE_EXHAUSTED, before the message is parsed further or stored: the
// phase's cap and kAdvertisementBytes + k (86 + 38) + 4m per device and
// round), then its content (INVALID_ARGUMENT). An abort wipes everything
// stored and unmasks nothing; the end of the round wipes it too. The round
// holds only public keys, commitments, sealed messages, masked inputs and,
// per device, the shares of one of its two secrets. Not thread-safe. Host
// code.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "edgeadmm/host/error.h"
#include "edgeadmm/random_byte_source.h"
#include "edgeadmm/secagg/device_session.h"
#include "edgeadmm/secagg/key_agreement.h"
#include "edgeadmm/secagg/masked_input.h"
#include "edgeadmm/secagg/neighbour_graph.h"
#include "edgeadmm/secagg/share_reveal.h"
#include "edgeadmm/secagg/share_transport.h"
#include "edgeadmm/secure_aggregation/neighbour_table.h"
#include "edgeadmm/span.h"

namespace edgeadmm::secure_aggregation {

enum class SecAggPhase : uint8_t {
  kNotStarted = 0,
  kAdvertise = 1,
  kShareKeys = 2,
  kMaskedInput = 3,
  kUnmasking = 4,
  kDone = 5,
  kAborted = 6,
};

// "advertise", "share-keys", ..., for messages and logs.
const char* SecAggPhaseName(SecAggPhase phase);

// Wire sizes the budget counts (docs/protocol.md's table).
constexpr size_t kAdvertisementBytes =
    2 * kX25519KeyBytes + kSelfSeedCommitmentBytes;
constexpr size_t kSealedEntryBytes = 4 + kSealedSharesBytes;  // receiver
constexpr size_t kRevealedEntryBytes = 4 + 1 + 1 + kShamirSecretBytes;
constexpr uint32_t kSecAggMaxMaskWords = uint32_t{1} << 22;

// Phase 0: the round's parameters, which every device of the cohort gets
// with its own index (GET v1/secagg/round, SecAggSessionParamsFor).
struct SecAggRoundParams {
  uint64_t round_id = 0;
  uint32_t devices = 0;      // n, the cohort: devices 0..n-1
  uint32_t degree = 0;       // k (NeighbourGraph)
  uint32_t threshold = 0;    // s, 2..min(k, n-1)
  uint32_t bits = 32;        // b, 1..32
  uint32_t mask_length = 0;  // m, 1..kSecAggMaxMaskWords
  // Fewer masked inputs than this abort the round (the privacy policy's
  // n - D); 1..n.
  uint32_t min_survivors = 1;
  std::array<std::byte, kGraphSeedBytes> graph_seed{};
};

// Device `own_index`'s view of the round: what phase 0 answers it.
SecAggSessionParams SecAggSessionParamsFor(const SecAggRoundParams& params,
                                           uint32_t own_index);

struct Advertisement {
  ConstByteSpan encryption_public;     // 32 B
  ConstByteSpan mask_public;           // 32 B
  ConstByteSpan self_seed_commitment;  // 32 B
};

// A neighbour's advertisement, as the gateway answers phase 1.
struct AdvertisedKeys {
  uint32_t device = 0;
  std::array<std::byte, kX25519KeyBytes> encryption_public{};
  std::array<std::byte, kX25519KeyBytes> mask_public{};
  std::array<std::byte, kSelfSeedCommitmentBytes> self_seed_commitment{};
};

// One sealed message a device sends in phase 2 (SealShares).
struct SealedShareMessage {
  uint32_t receiver = 0;
  ConstByteSpan sealed;  // kSealedSharesBytes
};

// One sealed message the gateway delivers in phase 2's answer.
struct DeliveredShares {
  uint32_t sender = 0;
  std::array<std::byte, kSealedSharesBytes> sealed{};
};

// Phase 3's answer to one device (SurvivorAnswer on the wire).
struct NeighbourhoodSurvivors {
  uint32_t survivors = 0;        // |U3|
  std::vector<uint32_t> listed;  // U3 among the device and its senders
};

// One sealed message as the round stores it.
struct StoredSealed {
  uint32_t receiver = 0;
  std::array<std::byte, kSealedSharesBytes> sealed{};
};

// Everything the round stores about one device: what a compromised gateway
// could read (the audit the tests run).
struct StoredDevice {
  bool advertised = false;
  AdvertisedKeys keys;
  std::vector<StoredSealed> sealed;  // sent by this device, as it sent them
  bool masked = false;
  std::vector<uint32_t> masked_input;  // y_i
  bool revealed = false;
  std::vector<RevealedShare> revealed_shares;
  size_t bytes = 0;  // counted against the budget
};

class SecAggRound {
 public:
  SecAggRound() = default;
  SecAggRound(const SecAggRound&) = delete;
  SecAggRound& operator=(const SecAggRound&) = delete;
  ~SecAggRound();

  // Phase 0. INVALID_ARGUMENT for parameters outside the ranges above
  // (named in the message); FAILED_PRECONDITION when already started.
  host::Error Init(const SecAggRoundParams& params);

  SecAggPhase phase() const { return phase_; }
  const SecAggRoundParams& params() const { return params_; }
  const NeighbourGraph& graph() const { return graph_; }
  // Each device's byte budget for the whole round.
  size_t budget_bytes() const { return budget_; }

  host::Error Advertise(uint32_t device, const Advertisement& message);
  host::Error CloseAdvertise();
  host::ErrorOr<std::vector<AdvertisedKeys>> NeighbourKeys(
      uint32_t device) const;

  host::Error SubmitShares(uint32_t device,
                           Span<const SealedShareMessage> messages);
  host::Error CloseShareKeys();
  host::ErrorOr<std::vector<DeliveredShares>> SharesFor(uint32_t device) const;

  host::Error SubmitMaskedInput(uint32_t device, Span<const uint32_t> masked);
  // ABORTED (and the round aborted) when the survivor rule fails.
  host::Error CloseMaskedInput();
  host::ErrorOr<std::vector<uint32_t>> Survivors() const;
  // FAILED_PRECONDITION outside the unmasking phase (masked-input closed,
  // the round not ended) or for a device not in U3.
  host::ErrorOr<NeighbourhoodSurvivors> SurvivorsFor(uint32_t device) const;

  host::Error SubmitRevealedShares(uint32_t device,
                                   Span<const RevealedShare> shares);
  // The sum mod 2^b over Survivors(). ABORTED when a secret has fewer than
  // s shares; DATA_LOSS (the round aborted too) when a reconstructed secret
  // fails its commitment or public-key check (UnmaskSum), device named.
  host::ErrorOr<std::vector<uint32_t>> CloseUnmasking(RandomByteSource& random);

  // Ends the round (kAborted, its state wiped); returns `why`.
  host::Error Abort(host::Error why);

  // The stored state (see StoredDevice); empty after an abort or the end.
  const std::vector<StoredDevice>& stored() const { return devices_; }

 private:
  host::Error Expect(SecAggPhase phase, const char* what) const;
  host::Error Admit(uint32_t device, SecAggPhase phase, size_t bytes,
                    size_t cap) const;
  host::Error CheckShares(uint32_t device,
                          Span<const SealedShareMessage> messages) const;
  host::Error CheckReveal(uint32_t device,
                          Span<const RevealedShare> shares) const;
  host::Error CheckSurvivorRule() const;
  host::Error Reconstruct(uint32_t device, ByteSpan secret) const;
  std::vector<uint32_t> Neighbours(uint32_t device) const;
  void Wipe();

  SecAggRoundParams params_;
  NeighbourGraph graph_;
  NeighbourTable neighbours_;  // graph_ tabulated: the requests' questions
  SecAggPhase phase_ = SecAggPhase::kNotStarted;
  size_t budget_ = 0;
  std::vector<StoredDevice> devices_;
  std::vector<bool> shared_;     // U2
  std::vector<bool> survived_;   // U3
  uint32_t survivor_count_ = 0;  // |U3|
};

}  // namespace edgeadmm::secure_aggregation
