#include "edgeadmm/fleet/byte_count_transport.h"

namespace edgeadmm::fleet {

Status ByteCountTransport::StartRequest(const TransportRequest& request,
                                        ByteSpan response_buffer) {
  const Status started = inner_.StartRequest(request, response_buffer);
  if (started.ok()) {
    up_ += request.payload_source != nullptr ? request.payload_source->size()
                                             : request.payload.size();
  }
  return started;
}

bool ByteCountTransport::TakeResult(TransportResult& result) {
  if (!inner_.TakeResult(result)) return false;
  if (result.status.ok()) down_ += result.payload_size;
  return true;
}

bool ByteCountTransport::TakeNotification(TransportResult& result) {
  if (!inner_.TakeNotification(result)) return false;
  if (result.status.ok()) down_ += result.payload_size;
  return true;
}

}  // namespace edgeadmm::fleet
