#include "edgeadmm/transport.h"

namespace edgeadmm {

Status Transport::Request(const TransportRequest& request,
                          ByteSpan response_buffer, uint32_t timeout_ms,
                          TransportResult& result) {
  const Status started = StartRequest(request, response_buffer);
  if (!started.ok()) {
    result = TransportResult{};
    result.status = started;
    return started;
  }
  // Poll in slices so a transport whose Poll() returns early (a datagram
  // arrived) is checked promptly; elapsed time is what Poll() reports.
  constexpr uint32_t kSliceMs = 50;
  uint64_t elapsed_ms = 0;
  while (!TakeResult(result)) {
    if (elapsed_ms >= timeout_ms) {
      Cancel();
      result = TransportResult{};
      result.status = Status::DeadlineExceeded();
      return result.status;
    }
    const uint64_t left = timeout_ms - elapsed_ms;
    const StatusWithSize polled =
        Poll(left < kSliceMs ? static_cast<uint32_t>(left) : kSliceMs);
    if (!polled.ok()) {
      Cancel();
      result = TransportResult{};
      result.status = polled.status();
      return result.status;
    }
    // Count at least 1 ms per slice so a Poll() that returns immediately
    // cannot spin forever.
    elapsed_ms += polled.size() > 0 ? polled.size() : 1;
  }
  return result.status;
}

}  // namespace edgeadmm
