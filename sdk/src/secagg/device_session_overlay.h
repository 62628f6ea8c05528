// Typed views of SecAggSessionBuffers' regions that several phases reuse
// (device_session.h, "Memory"): a phase starts its objects in a region with
// Begin (which zeroes them) and later reads them with View.
#pragma once

#include <cstddef>
#include <cstring>
#include <new>
#include <type_traits>

#include "edgeadmm/secagg/device_session.h"

namespace edgeadmm {
namespace secagg_internal {

// Who lives where, and that each fits its region entry by entry.
static_assert(2 * sizeof(ShamirShare) <= sizeof(SecAggPeerKeys) &&
                  alignof(ShamirShare) <= alignof(SecAggPeerKeys),
              "ShareKeys' Shamir scratch lives in the neighbours region");
static_assert(sizeof(RevealedShare) <= sizeof(SecAggPeerKeys) &&
                  alignof(RevealedShare) <= alignof(SecAggPeerKeys),
              "the revealed shares live in the neighbours region");
static_assert(sizeof(ReceivedShares) <= sizeof(SecAggSealed) &&
                  alignof(ReceivedShares) <= alignof(SecAggSealed),
              "the received shares live in the sealed region");
static_assert(sizeof(uint32_t) <= sizeof(SecAggPeerKey) &&
                  alignof(uint32_t) <= alignof(SecAggPeerKey),
              "the neighbour ids live in the scratch region");

// Zeroes `bytes` bytes at `p` (null when `bytes` is 0): one copy of the
// zeroing for every Begin.
void ZeroRegion(void* p, size_t bytes);

// Starts `count` zeroed T in `region` (count * sizeof(T) must fit).
// The types are aggregates of integers and bytes (implicit-lifetime, P0593):
// zeroing the storage gives the same objects as value-initializing each.
template <typename T, typename R>
Span<T> Begin(Span<R> region, size_t count) {
  static_assert(std::is_trivially_copyable<T>::value &&
                    std::is_trivially_destructible<T>::value,
                "only plain records are overlaid");
  void* p = region.data();
  ZeroRegion(p, count * sizeof(T));
  T* base = static_cast<T*>(p);
  return Span<T>(count == 0 ? base : std::launder(base), count);
}

// The `count` T that Begin started in `region`.
template <typename T, typename R>
Span<T> View(Span<R> region, size_t count) {
  T* base = static_cast<T*>(static_cast<void*>(region.data()));
  return Span<T>(count == 0 ? base : std::launder(base), count);
}

}  // namespace secagg_internal
}  // namespace edgeadmm
