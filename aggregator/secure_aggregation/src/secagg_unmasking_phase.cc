// Phase 4 of the gateway's SecAgg+ round (see secagg_round.h): the
// survivors' revealed shares, the reconstruction of one secret per device
// that shared its keys, and the unmasked sum.
#include <algorithm>
#include <cstring>
#include <string>

#include "edgeadmm/secagg/shamir.h"
#include "edgeadmm/secure_aggregation/secagg_round.h"
#include "edgeadmm/secure_aggregation/unmasking.h"
#include "mbedtls/platform_util.h"
#include "round_messages.h"

namespace edgeadmm::secure_aggregation {
namespace {

using round_internal::Dev;
using round_internal::Exists;

bool SameReveal(const RevealedShare& a, const RevealedShare& b) {
  return a.sender == b.sender && a.self_seed == b.self_seed &&
         a.share.index == b.share.index &&
         std::memcmp(a.share.value, b.share.value, kShamirSecretBytes) == 0;
}

}  // namespace

host::Error SecAggRound::CheckReveal(uint32_t device,
                                     Span<const RevealedShare> shares) const {
  uint32_t expected = 0;
  for (uint32_t j : Neighbours(device)) expected += shared_[j] ? 1 : 0;
  std::vector<uint32_t> seen;  // senders so far: at most k, all neighbours
  seen.reserve(shares.size());
  for (const RevealedShare& r : shares) {
    const uint32_t i = r.sender;
    if (i >= params_.devices || !shared_[i] ||
        !neighbours_.Adjacent(device, i)) {
      return host::Error::InvalidArgument(
          Dev(device) + " revealed a share of device " + std::to_string(i) +
          ", which sent it none");
    }
    if (std::find(seen.begin(), seen.end(), i) != seen.end()) {
      return host::Error::InvalidArgument(
          Dev(device) + " revealed two shares of device " + std::to_string(i) +
          " (at most one of its two secrets may be revealed)");
    }
    seen.push_back(i);
    if (r.self_seed != survived_[i]) {
      return host::Error::InvalidArgument(
          Dev(device) + " revealed the " +
          (r.self_seed ? "self-seed" : "mask-key") + " share of device " +
          std::to_string(i) + ", a " +
          (survived_[i] ? "survivor" : "dropped device"));
    }
    if (r.share.index == 0) {
      return host::Error::InvalidArgument(Dev(device) +
                                          " revealed a share with index 0");
    }
    for (uint32_t j : Neighbours(i)) {
      if (j == device || !devices_[j].revealed) continue;
      for (const RevealedShare& o : devices_[j].revealed_shares) {
        if (o.sender == i && o.share.index == r.share.index) {
          return host::Error::InvalidArgument(
              Dev(device) + " revealed share index " +
              std::to_string(r.share.index) + " of device " +
              std::to_string(i) + ", already revealed by device " +
              std::to_string(j));
        }
      }
    }
  }
  if (shares.size() != expected) {
    return host::Error::InvalidArgument(
        Dev(device) + " revealed " + std::to_string(shares.size()) +
        " shares, it holds " + std::to_string(expected));
  }
  return host::Error::Ok();
}

host::Error SecAggRound::SubmitRevealedShares(
    uint32_t device, Span<const RevealedShare> shares) {
  EDGEADMM_HOST_TRY(Expect(SecAggPhase::kUnmasking, "revealed shares"));
  if (device >= params_.devices || !survived_[device]) {
    return host::Error::FailedPrecondition(Dev(device) +
                                           " is not on the survivor list");
  }
  StoredDevice& d = devices_[device];
  if (d.revealed) {
    bool same = d.revealed_shares.size() == shares.size();
    for (size_t i = 0; same && i < shares.size(); ++i) {
      same = SameReveal(d.revealed_shares[i], shares[i]);
    }
    return same ? host::Error::Ok() : Exists(device, "set of revealed shares");
  }
  const size_t bytes = shares.size() * kRevealedEntryBytes;
  EDGEADMM_HOST_TRY(Admit(device, SecAggPhase::kUnmasking, bytes,
                          graph_.degree() * kRevealedEntryBytes));
  EDGEADMM_HOST_TRY(CheckReveal(device, shares));
  d.revealed_shares.assign(shares.begin(), shares.end());
  d.revealed = true;
  d.bytes += bytes;
  return host::Error::Ok();
}

// The secret of `device` that its survival calls for (its self seed if it
// survived, its mask key if not), from the first s shares revealed.
host::Error SecAggRound::Reconstruct(uint32_t device, ByteSpan secret) const {
  std::vector<ShamirShare> shares;
  for (uint32_t j : Neighbours(device)) {
    if (!devices_[j].revealed) continue;
    for (const RevealedShare& r : devices_[j].revealed_shares) {
      if (r.sender == device) shares.push_back(r.share);
    }
  }
  const char* what = survived_[device] ? "self seed" : "mask key";
  Status status = Status::FailedPrecondition();
  if (shares.size() >= params_.threshold) {
    status =
        ShamirReconstruct(Span<const ShamirShare>(shares.data(), shares.size()),
                          params_.threshold, secret);
  }
  mbedtls_platform_zeroize(shares.data(), shares.size() * sizeof(ShamirShare));
  if (!status.ok()) {
    return host::Error(StatusCode::kAborted,
                       Dev(device) + "'s " + what + " has " +
                           std::to_string(shares.size()) +
                           " revealed shares, the threshold is " +
                           std::to_string(params_.threshold));
  }
  return host::Error::Ok();
}

host::ErrorOr<std::vector<uint32_t>> SecAggRound::CloseUnmasking(
    RandomByteSource& random) {
  EDGEADMM_HOST_TRY(Expect(SecAggPhase::kUnmasking, "closing unmasking"));
  using Secret = std::array<std::byte, kShamirSecretBytes>;
  std::vector<Secret> secrets(params_.devices);
  std::vector<Survivor> survivors;
  std::vector<Dropped> dropped;
  host::Error error;
  for (uint32_t i = 0; i < params_.devices && error.ok(); ++i) {
    if (!shared_[i]) continue;
    const StoredDevice& d = devices_[i];
    ByteSpan secret(secrets[i].data(), secrets[i].size());
    error = Reconstruct(i, secret);
    if (!error.ok()) break;
    const ConstByteSpan mask_public(d.keys.mask_public.data(),
                                    d.keys.mask_public.size());
    if (survived_[i]) {
      survivors.push_back(
          {i,
           Span<const uint32_t>(d.masked_input.data(), d.masked_input.size()),
           secret,
           ConstByteSpan(d.keys.self_seed_commitment.data(),
                         d.keys.self_seed_commitment.size()),
           mask_public});
    } else {
      dropped.push_back({i, secret, mask_public});
    }
  }
  std::vector<uint32_t> sum(params_.mask_length, 0);
  if (error.ok()) {
    UnmaskRequest request;
    request.round_id = params_.round_id;
    request.bits = params_.bits;
    request.graph = &graph_;
    request.survivors =
        Span<const Survivor>(survivors.data(), survivors.size());
    request.dropped = Span<const Dropped>(dropped.data(), dropped.size());
    uint32_t failed = 0;
    const Status status = UnmaskSum(
        request, random, Span<uint32_t>(sum.data(), sum.size()), &failed);
    if (status == Status::DataLoss()) {
      error = host::Error::DataLoss(
          Dev(failed) +
          "'s reconstructed secret fails its commitment or "
          "public-key check");
    } else if (!status.ok()) {
      error = host::Error(status, "unmasking the sum failed");
    }
  }
  mbedtls_platform_zeroize(secrets.data(), secrets.size() * sizeof(Secret));
  if (!error.ok()) return Abort(error);
  Wipe();
  phase_ = SecAggPhase::kDone;
  return sum;
}

}  // namespace edgeadmm::secure_aggregation
