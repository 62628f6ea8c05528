// The gateway's SecAgg+ round state machine (see secagg_round.h).
#include "edgeadmm/secure_aggregation/secagg_round.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "mbedtls/platform_util.h"
#include "round_messages.h"

namespace edgeadmm::secure_aggregation {
namespace {

constexpr uint32_t kSecAggMaxDevices = uint32_t{1} << 20;

using round_internal::Copy;
using round_internal::Dev;
using round_internal::Exhausted;
using round_internal::Exists;
using round_internal::Same;

host::Error CheckParams(const SecAggRoundParams& p) {
  if (p.devices < 2 || p.devices > kSecAggMaxDevices) {
    return host::Error::InvalidArgument(
        "the cohort must have 2.." + std::to_string(kSecAggMaxDevices) +
        " devices, got " + std::to_string(p.devices));
  }
  if (p.bits < 1 || p.bits > 32) {
    return host::Error::InvalidArgument("bits must be in 1..32, got " +
                                        std::to_string(p.bits));
  }
  if (p.mask_length < 1 || p.mask_length > kSecAggMaxMaskWords) {
    return host::Error::InvalidArgument(
        "the mask length must be in 1.." + std::to_string(kSecAggMaxMaskWords) +
        " words, got " + std::to_string(p.mask_length));
  }
  if (p.min_survivors < 1 || p.min_survivors > p.devices) {
    return host::Error::InvalidArgument(
        "min_survivors must be in 1..n = " + std::to_string(p.devices) +
        ", got " + std::to_string(p.min_survivors));
  }
  return host::Error::Ok();
}

}  // namespace

SecAggSessionParams SecAggSessionParamsFor(const SecAggRoundParams& params,
                                           uint32_t own_index) {
  SecAggSessionParams s;
  s.round_id = params.round_id;
  s.devices = params.devices;
  s.degree = params.degree;
  s.threshold = params.threshold;
  s.bits = params.bits;
  s.mask_length = params.mask_length;
  s.min_survivors = params.min_survivors;
  s.own_index = own_index;
  std::memcpy(s.graph_seed, params.graph_seed.data(), kGraphSeedBytes);
  return s;
}

const char* SecAggPhaseName(SecAggPhase phase) {
  switch (phase) {
    case SecAggPhase::kNotStarted:
      return "not-started";
    case SecAggPhase::kAdvertise:
      return "advertise";
    case SecAggPhase::kShareKeys:
      return "share-keys";
    case SecAggPhase::kMaskedInput:
      return "masked-input";
    case SecAggPhase::kUnmasking:
      return "unmasking";
    case SecAggPhase::kDone:
      return "done";
    case SecAggPhase::kAborted:
      return "aborted";
  }
  return "unknown";
}

SecAggRound::~SecAggRound() { Wipe(); }

host::Error SecAggRound::Init(const SecAggRoundParams& params) {
  if (phase_ != SecAggPhase::kNotStarted) {
    return host::Error::FailedPrecondition("the round has already started");
  }
  EDGEADMM_HOST_TRY(CheckParams(params));
  const ConstByteSpan seed(params.graph_seed.data(), params.graph_seed.size());
  if (!graph_.Init(seed, params.devices, params.degree).ok()) {
    return host::Error::InvalidArgument(
        "degree " + std::to_string(params.degree) +
        " is not a neighbour degree for " + std::to_string(params.devices) +
        " devices (even, 2.." + std::to_string(kSecAggMaxNeighbours) +
        ", or >= n - 1)");
  }
  if (!neighbours_.Init(graph_).ok()) {
    return host::Error::Internal("the neighbour graph could not be tabulated");
  }
  if (params.threshold < 2 || params.threshold > graph_.degree()) {
    return host::Error::InvalidArgument(
        "the threshold must be in 2.." + std::to_string(graph_.degree()) +
        ", got " + std::to_string(params.threshold));
  }
  params_ = params;
  budget_ =
      kAdvertisementBytes +
      size_t{graph_.degree()} * (kSealedEntryBytes + kRevealedEntryBytes) +
      sizeof(uint32_t) * size_t{params.mask_length};
  devices_.assign(params.devices, StoredDevice());
  shared_.assign(params.devices, false);
  survived_.assign(params.devices, false);
  phase_ = SecAggPhase::kAdvertise;
  return host::Error::Ok();
}

host::Error SecAggRound::Expect(SecAggPhase phase, const char* what) const {
  if (phase_ == phase) return host::Error::Ok();
  return host::Error::FailedPrecondition(
      std::string(what) + " belongs to phase '" + SecAggPhaseName(phase) +
      "'; round " + std::to_string(params_.round_id) + " is in phase '" +
      SecAggPhaseName(phase_) + "'");
}

host::Error SecAggRound::Admit(uint32_t device, SecAggPhase phase, size_t bytes,
                               size_t cap) const {
  const size_t spent = devices_[device].bytes;
  if (bytes > cap || spent + bytes > budget_) {
    return Exhausted(
        Dev(device) + " sent " + std::to_string(bytes) + " B in phase '" +
        SecAggPhaseName(phase) + "' (at most " + std::to_string(cap) + " B, " +
        std::to_string(budget_ - spent) + " B left of its round budget)");
  }
  return host::Error::Ok();
}

std::vector<uint32_t> SecAggRound::Neighbours(uint32_t device) const {
  return neighbours_.Neighbours(device);  // device < n: checked by callers
}

host::Error SecAggRound::Abort(host::Error why) {
  Wipe();
  phase_ = SecAggPhase::kAborted;
  return why;
}

void SecAggRound::Wipe() {
  for (StoredDevice& d : devices_) {
    for (StoredSealed& s : d.sealed) {
      mbedtls_platform_zeroize(s.sealed.data(), s.sealed.size());
    }
    if (!d.masked_input.empty()) {
      mbedtls_platform_zeroize(d.masked_input.data(),
                               d.masked_input.size() * sizeof(uint32_t));
    }
    if (!d.revealed_shares.empty()) {
      mbedtls_platform_zeroize(
          d.revealed_shares.data(),
          d.revealed_shares.size() * sizeof(RevealedShare));
    }
  }
  devices_.clear();
}

// Phase 1.

host::Error SecAggRound::Advertise(uint32_t device,
                                   const Advertisement& message) {
  EDGEADMM_HOST_TRY(Expect(SecAggPhase::kAdvertise, "an advertisement"));
  if (device >= params_.devices) {
    return host::Error::FailedPrecondition(Dev(device) +
                                           " is not in the round's cohort");
  }
  StoredDevice& d = devices_[device];
  if (d.advertised) {
    const bool same =
        Same(message.encryption_public, d.keys.encryption_public) &&
        Same(message.mask_public, d.keys.mask_public) &&
        Same(message.self_seed_commitment, d.keys.self_seed_commitment);
    return same ? host::Error::Ok() : Exists(device, "advertisement");
  }
  const size_t bytes = message.encryption_public.size() +
                       message.mask_public.size() +
                       message.self_seed_commitment.size();
  EDGEADMM_HOST_TRY(
      Admit(device, SecAggPhase::kAdvertise, bytes, kAdvertisementBytes));
  if (message.encryption_public.size() != kX25519KeyBytes ||
      message.mask_public.size() != kX25519KeyBytes ||
      message.self_seed_commitment.size() != kSelfSeedCommitmentBytes) {
    return host::Error::InvalidArgument(
        Dev(device) +
        "'s advertisement must be two 32 B public keys and a "
        "32 B commitment");
  }
  d.keys.device = device;
  Copy(message.encryption_public, d.keys.encryption_public);
  Copy(message.mask_public, d.keys.mask_public);
  Copy(message.self_seed_commitment, d.keys.self_seed_commitment);
  d.advertised = true;
  d.bytes += bytes;
  return host::Error::Ok();
}

host::Error SecAggRound::CloseAdvertise() {
  EDGEADMM_HOST_TRY(Expect(SecAggPhase::kAdvertise, "closing advertise"));
  uint32_t count = 0;
  for (const StoredDevice& d : devices_) count += d.advertised ? 1 : 0;
  if (count < params_.min_survivors) {
    return Abort(host::Error(StatusCode::kAborted,
                             std::to_string(count) +
                                 " devices advertised, the round needs " +
                                 std::to_string(params_.min_survivors)));
  }
  phase_ = SecAggPhase::kShareKeys;
  return host::Error::Ok();
}

host::ErrorOr<std::vector<AdvertisedKeys>> SecAggRound::NeighbourKeys(
    uint32_t device) const {
  if (phase_ < SecAggPhase::kShareKeys || phase_ > SecAggPhase::kUnmasking) {
    return host::Error::FailedPrecondition(
        std::string("the neighbours' keys are answered after 'advertise' "
                    "closes; the round is in phase '") +
        SecAggPhaseName(phase_) + "'");
  }
  if (device >= params_.devices || !devices_[device].advertised) {
    return host::Error::FailedPrecondition(
        Dev(device) + " did not advertise: it is not in this round");
  }
  std::vector<AdvertisedKeys> out;
  for (uint32_t j : Neighbours(device)) {
    if (devices_[j].advertised) out.push_back(devices_[j].keys);
  }
  return out;
}

// Phase 2.

host::Error SecAggRound::CheckShares(
    uint32_t device, Span<const SealedShareMessage> messages) const {
  std::vector<uint32_t> expected;
  for (uint32_t j : Neighbours(device)) {
    if (devices_[j].advertised) expected.push_back(j);
  }
  if (expected.size() < params_.threshold) {
    return host::Error::FailedPrecondition(
        Dev(device) + " has " + std::to_string(expected.size()) +
        " advertised neighbours, fewer than the threshold " +
        std::to_string(params_.threshold));
  }
  std::vector<bool> seen(params_.devices, false);
  for (const SealedShareMessage& m : messages) {
    if (m.sealed.size() != kSealedSharesBytes) {
      return host::Error::InvalidArgument(
          Dev(device) + ": a sealed message must be " +
          std::to_string(kSealedSharesBytes) + " B");
    }
    if (m.receiver >= params_.devices ||
        !std::binary_search(expected.begin(), expected.end(), m.receiver)) {
      return host::Error::InvalidArgument(
          Dev(device) + " addressed a sealed message to device " +
          std::to_string(m.receiver) +
          ", not one of its neighbours that advertised");
    }
    if (seen[m.receiver]) {
      return host::Error::InvalidArgument(
          Dev(device) + " addressed two sealed messages to device " +
          std::to_string(m.receiver));
    }
    seen[m.receiver] = true;
  }
  if (messages.size() != expected.size()) {
    return host::Error::InvalidArgument(
        Dev(device) + " sent " + std::to_string(messages.size()) +
        " sealed messages for " + std::to_string(expected.size()) +
        " neighbours that advertised");
  }
  return host::Error::Ok();
}

host::Error SecAggRound::SubmitShares(uint32_t device,
                                      Span<const SealedShareMessage> messages) {
  EDGEADMM_HOST_TRY(Expect(SecAggPhase::kShareKeys, "sealed shares"));
  if (device >= params_.devices || !devices_[device].advertised) {
    return host::Error::FailedPrecondition(
        Dev(device) + " did not advertise: it is not in this round");
  }
  StoredDevice& d = devices_[device];
  if (!d.sealed.empty()) {
    bool same = d.sealed.size() == messages.size();
    for (size_t i = 0; same && i < messages.size(); ++i) {
      same = d.sealed[i].receiver == messages[i].receiver &&
             Same(messages[i].sealed, d.sealed[i].sealed);
    }
    return same ? host::Error::Ok() : Exists(device, "set of sealed shares");
  }
  const size_t bytes = messages.size() * kSealedEntryBytes;
  EDGEADMM_HOST_TRY(Admit(device, SecAggPhase::kShareKeys, bytes,
                          graph_.degree() * kSealedEntryBytes));
  EDGEADMM_HOST_TRY(CheckShares(device, messages));
  d.sealed.resize(messages.size());
  for (size_t i = 0; i < messages.size(); ++i) {
    d.sealed[i].receiver = messages[i].receiver;
    Copy(messages[i].sealed, d.sealed[i].sealed);
  }
  d.bytes += bytes;
  return host::Error::Ok();
}

host::Error SecAggRound::CloseShareKeys() {
  EDGEADMM_HOST_TRY(Expect(SecAggPhase::kShareKeys, "closing share-keys"));
  uint32_t count = 0;
  for (uint32_t i = 0; i < params_.devices; ++i) {
    shared_[i] = !devices_[i].sealed.empty();
    count += shared_[i] ? 1 : 0;
  }
  if (count < params_.min_survivors) {
    return Abort(host::Error(
        StatusCode::kAborted,
        std::to_string(count) + " devices shared their keys, the round needs " +
            std::to_string(params_.min_survivors)));
  }
  phase_ = SecAggPhase::kMaskedInput;
  return host::Error::Ok();
}

host::ErrorOr<std::vector<DeliveredShares>> SecAggRound::SharesFor(
    uint32_t device) const {
  if (phase_ < SecAggPhase::kMaskedInput || phase_ > SecAggPhase::kUnmasking) {
    return host::Error::FailedPrecondition(
        std::string("sealed shares are delivered after 'share-keys' closes; "
                    "the round is in phase '") +
        SecAggPhaseName(phase_) + "'");
  }
  if (device >= params_.devices || !shared_[device]) {
    return host::Error::FailedPrecondition(
        Dev(device) + " did not share its keys: it is not in this round");
  }
  std::vector<DeliveredShares> out;
  for (uint32_t j : Neighbours(device)) {
    if (!shared_[j]) continue;
    for (const StoredSealed& s : devices_[j].sealed) {
      if (s.receiver != device) continue;
      DeliveredShares m;
      m.sender = j;
      m.sealed = s.sealed;
      out.push_back(m);
    }
  }
  return out;
}

// Phase 3.

host::Error SecAggRound::SubmitMaskedInput(uint32_t device,
                                           Span<const uint32_t> masked) {
  EDGEADMM_HOST_TRY(Expect(SecAggPhase::kMaskedInput, "a masked input"));
  if (device >= params_.devices || !shared_[device]) {
    return host::Error::FailedPrecondition(
        Dev(device) + " did not share its keys: it is not in this round");
  }
  StoredDevice& d = devices_[device];
  if (d.masked) {
    const bool same =
        d.masked_input.size() == masked.size() &&
        std::equal(masked.begin(), masked.end(), d.masked_input.begin());
    return same ? host::Error::Ok() : Exists(device, "masked input");
  }
  const size_t cap = sizeof(uint32_t) * size_t{params_.mask_length};
  const size_t bytes = sizeof(uint32_t) * masked.size();
  EDGEADMM_HOST_TRY(Admit(device, SecAggPhase::kMaskedInput, bytes, cap));
  if (masked.size() != params_.mask_length) {
    return host::Error::InvalidArgument(Dev(device) + "'s masked input has " +
                                        std::to_string(masked.size()) +
                                        " words, the round's mask length is " +
                                        std::to_string(params_.mask_length));
  }
  const uint64_t modulus = uint64_t{1} << params_.bits;
  for (uint32_t w : masked) {
    if (w >= modulus) {
      return host::Error::InvalidArgument(Dev(device) +
                                          "'s masked input has a word >= 2^" +
                                          std::to_string(params_.bits));
    }
  }
  d.masked_input.assign(masked.begin(), masked.end());
  d.masked = true;
  d.bytes += bytes;
  return host::Error::Ok();
}

// The rule of docs/protocol.md: enough survivors, and for every device
// whose shares are out (U2) at least s survivors among their holders.
host::Error SecAggRound::CheckSurvivorRule() const {
  if (survivor_count_ < params_.min_survivors) {
    return host::Error(StatusCode::kAborted,
                       std::to_string(survivor_count_) +
                           " devices sent a masked input, the round needs " +
                           std::to_string(params_.min_survivors));
  }
  for (uint32_t d = 0; d < params_.devices; ++d) {
    if (!shared_[d]) continue;
    uint32_t holders = 0;
    for (uint32_t j : Neighbours(d)) holders += survived_[j] ? 1 : 0;
    if (holders < params_.threshold) {
      return host::Error(
          StatusCode::kAborted,
          Dev(d) + " (" + (survived_[d] ? "survivor" : "dropped") + ") has " +
              std::to_string(holders) +
              " surviving neighbours holding its shares, the threshold is " +
              std::to_string(params_.threshold));
    }
  }
  return host::Error::Ok();
}

host::Error SecAggRound::CloseMaskedInput() {
  EDGEADMM_HOST_TRY(Expect(SecAggPhase::kMaskedInput, "closing masked-input"));
  survivor_count_ = 0;
  for (uint32_t i = 0; i < params_.devices; ++i) {
    survived_[i] = devices_[i].masked;
    survivor_count_ += survived_[i] ? 1 : 0;
  }
  const host::Error rule = CheckSurvivorRule();
  if (!rule.ok()) return Abort(rule);
  phase_ = SecAggPhase::kUnmasking;
  return host::Error::Ok();
}

host::ErrorOr<std::vector<uint32_t>> SecAggRound::Survivors() const {
  if (phase_ != SecAggPhase::kUnmasking && phase_ != SecAggPhase::kDone) {
    return host::Error::FailedPrecondition(
        std::string("the survivors are known once 'masked-input' "
                    "closes; the round is in phase '") +
        SecAggPhaseName(phase_) + "'");
  }
  std::vector<uint32_t> out;
  for (uint32_t i = 0; i < params_.devices; ++i) {
    if (survived_[i]) out.push_back(i);
  }
  return out;
}

host::ErrorOr<NeighbourhoodSurvivors> SecAggRound::SurvivorsFor(
    uint32_t device) const {
  EDGEADMM_HOST_TRY_ASSIGN(auto delivered, SharesFor(device));
  if (phase_ < SecAggPhase::kUnmasking || !survived_[device]) {
    return host::Error::FailedPrecondition(
        Dev(device) +
        " is not a survivor, or masked-input has not closed; the round is "
        "in phase '" +
        SecAggPhaseName(phase_) + "'");
  }
  NeighbourhoodSurvivors out;
  out.survivors = survivor_count_;
  out.listed.push_back(device);
  for (const DeliveredShares& m : delivered) {
    if (survived_[m.sender]) out.listed.push_back(m.sender);
  }
  std::sort(out.listed.begin(), out.listed.end());
  return out;
}

}  // namespace edgeadmm::secure_aggregation
