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

Status Check(Span<const ReceivedShares> received,
             Span<const uint32_t> survivors, uint32_t own_index,
             size_t min_survivors, Span<RevealedShare> out) {
  if (out.size() < received.size()) return Status::InvalidArgument();
  for (size_t i = 1; i < survivors.size(); ++i) {
    if (survivors[i - 1] >= survivors[i]) return Status::InvalidArgument();
  }
  if (survivors.size() < min_survivors || !Listed(survivors, own_index)) {
    return Status::FailedPrecondition();
  }
  return Status::Ok();
}

}  // namespace

Status SelectRevealedShares(Span<const ReceivedShares> received,
                            Span<const uint32_t> survivors, uint32_t own_index,
                            size_t min_survivors, Span<RevealedShare> out) {
  const Status status =
      Check(received, survivors, own_index, min_survivors, out);
  if (!status.ok()) {
    if (!out.empty()) {
      mbedtls_platform_zeroize(out.data(), out.size() * sizeof(out[0]));
    }
    return status;
  }
  for (size_t i = 0; i < received.size(); ++i) {
    const ReceivedShares& r = received[i];
    const bool survived = Listed(survivors, r.sender);
    out[i].sender = r.sender;
    out[i].self_seed = survived;
    out[i].share = survived ? r.shares.self_seed : r.shares.mask_key;
  }
  return Status::Ok();
}

}  // namespace edgeadmm
