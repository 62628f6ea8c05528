// The unmasking answer of one device (see share_reveal.h).
#include "edgeadmm/secagg/share_reveal.h"

#include "mbedtls/platform_util.h"

namespace edgeadmm {
namespace {

// Binary search in a strictly increasing list.
bool Listed(Span<const uint32_t> sorted, uint32_t device) {
  size_t lo = 0;
  size_t hi = sorted.size();
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (sorted[mid] == device) return true;
    if (sorted[mid] < device) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return false;
}

Status Check(Span<const ReceivedShares> received, const SurvivorAnswer& answer,
             const RevealRound& round, Span<RevealedShare> out) {
  const Span<const uint32_t> listed = answer.listed;
  if (out.size() < received.size() || answer.survivors < listed.size() ||
      answer.survivors > round.devices) {
    return Status::InvalidArgument();
  }
  for (size_t i = 1; i < listed.size(); ++i) {
    if (listed[i - 1] >= listed[i]) return Status::InvalidArgument();
  }
  // Every listed device is this one or a sender (each sender is named
  // once in `received`, so counting the listed senders is enough).
  size_t senders = 0;
  for (const ReceivedShares& r : received) {
    if (r.sender != round.own_index && Listed(listed, r.sender)) ++senders;
  }
  const bool own = Listed(listed, round.own_index);
  if (senders + (own ? 1 : 0) != listed.size()) {
    return Status::InvalidArgument();
  }
  if (!own || answer.survivors < round.min_survivors) {
    return Status::FailedPrecondition();
  }
  return Status::Ok();
}

}  // namespace

Status SelectRevealedShares(Span<const ReceivedShares> received,
                            const SurvivorAnswer& answer,
                            const RevealRound& round, Span<RevealedShare> out) {
  const Status status = Check(received, answer, round, out);
  if (!status.ok()) {
    if (!out.empty()) {
      mbedtls_platform_zeroize(out.data(), out.size() * sizeof(out[0]));
    }
    return status;
  }
  for (size_t i = 0; i < received.size(); ++i) {
    const ReceivedShares& r = received[i];
    const bool survived = Listed(answer.listed, r.sender);
    out[i].sender = r.sender;
    out[i].self_seed = survived;
    out[i].share = survived ? r.shares.self_seed : r.shares.mask_key;
  }
  return Status::Ok();
}

}  // namespace edgeadmm
