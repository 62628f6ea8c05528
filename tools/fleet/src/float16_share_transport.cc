#include "edgeadmm/fleet/float16_share_transport.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "edgeadmm/wire/protocol.h"
#include "edgeadmm/wire/update.h"

namespace edgeadmm::fleet {

double RoundToFloat16(double v) {
  if (!std::isfinite(v)) return v;
  constexpr double kMax = 65504.0;  // (2 − 2^-10)·2^15
  const double a = std::fabs(v);
  if (a >= kMax) return std::copysign(kMax, v);  // saturate, never ±inf
  // IEEE binary16: 10 fraction bits; exponent ≥ −14, below it the
  // subnormal grid 2^-24. a = m·2^k, m in [0.5, 1) → spacing 2^(k−1−10).
  int k = 0;
  std::frexp(a, &k);
  const int exponent = std::max(k - 1, -14);
  const double quantum = std::ldexp(1.0, exponent - 10);
  // nearbyint rounds half to even in the default rounding mode.
  const double r = std::nearbyint(a / quantum) * quantum;
  return std::copysign(std::min(r, kMax), v);
}

Status Float16ShareTransport::StartRequest(const TransportRequest& request,
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
  for (Real& v : decoded.vector) v = RoundToFloat16(v);
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
