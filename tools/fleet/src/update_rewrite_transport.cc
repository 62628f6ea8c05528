#include "edgeadmm/fleet/update_rewrite_transport.h"

#include <cstring>

#include "edgeadmm/wire/protocol.h"

namespace edgeadmm::fleet {

Status UpdateRewriteTransport::StartRequest(const TransportRequest& request,
                                            ByteSpan response_buffer) {
  if (request.payload_source != nullptr || request.response_sink != nullptr) {
    return Status::Unimplemented();
  }
  if (request.method != CoapMethod::kPost ||
      std::strcmp(request.path, wire::kUpdatePath) != 0) {
    return inner_.StartRequest(request, response_buffer);
  }
  // Every value of the update: at most the payload's byte count / 4.
  std::vector<Real> values(request.payload.size() / 4 + 1);
  wire::DecodedUpdate decoded;
  if (!wire::DecodeUpdate(request.payload,
                          Span<Real>(values.data(), values.size()), decoded)
           .ok()) {
    return inner_.StartRequest(request, response_buffer);
  }
  Rewrite(decoded);
  payload_.resize(request.payload.size() + 16);
  const StatusWithSize encoded =
      wire::EncodeUpdate(decoded.header, decoded.vector,
                         ByteSpan(payload_.data(), payload_.size()));
  if (!encoded.ok()) return encoded.status();
  TransportRequest rewritten = request;
  rewritten.payload = ConstByteSpan(payload_.data(), encoded.size());
  ++rewritten_;
  return inner_.StartRequest(rewritten, response_buffer);
}

}  // namespace edgeadmm::fleet
