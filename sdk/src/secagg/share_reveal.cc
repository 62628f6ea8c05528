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

// The answer's own checks: the list increasing, naming this device, the
// count in all at least the list's length and the floor.
Status Check(const SurvivorAnswer& answer, const RevealRound& round) {
  const Span<const uint32_t> listed = answer.listed;
  if (answer.survivors < listed.size()) {
    return Status::InvalidArgument();
  }
  for (size_t i = 1; i < listed.size(); ++i) {
    if (listed[i - 1] >= listed[i]) return Status::InvalidArgument();
  }
  if (!Listed(listed, round.own_index) ||
      answer.survivors < round.min_survivors) {
    return Status::FailedPrecondition();
  }
  return Status::Ok();
}

}  // namespace

Status SelectRevealedShares(Span<const ReceivedShares> received,
                            const SurvivorAnswer& answer,
                            const RevealRound& round, Span<RevealedShare> out) {
  Status status = out.size() < received.size() ? Status::InvalidArgument()
                                               : Check(answer, round);
  // Each sender is named once in `received` and is not this device, so
  // the listed senders and the device itself must make the whole list:
  // the answer names no device that sent this one no shares.
  size_t listed = 1;
  for (size_t i = 0; status.ok() && i < received.size(); ++i) {
    const ReceivedShares& r = received[i];
    const bool survived = Listed(answer.listed, r.sender);
    listed += survived ? 1 : 0;
    out[i].sender = r.sender;
    out[i].self_seed = survived;
    out[i].share = survived ? r.shares.self_seed : r.shares.mask_key;
  }
  if (status.ok() && listed != answer.listed.size()) {
    status = Status::InvalidArgument();
  }
  if (!status.ok() && !out.empty()) {
    mbedtls_platform_zeroize(out.data(), out.size() * sizeof(out[0]));
  }
  return status;
}

}  // namespace edgeadmm
