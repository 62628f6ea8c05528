#include "wire_bodies.h"

#include <algorithm>
#include <cstring>

#include "edgeadmm/wire/protocol.h"
#include "edgeadmm/wire/update.h"

namespace edgeadmm::testing {

std::vector<uint8_t> EncodeUpdateBody(const std::string& device_id,
                                      uint64_t job_id, uint64_t round_id,
                                      const std::vector<double>& vector,
                                      uint32_t participations,
                                      edgeadmm_wire_UpdateKind kind,
                                      const std::vector<uint8_t>& extra) {
  edgeadmm_wire_Update h = edgeadmm_wire_Update_init_zero;
  h.job_id = job_id;
  h.round_id = round_id;
  std::strncpy(h.device_id, device_id.c_str(), sizeof(h.device_id) - 1);
  h.kind = kind;
  h.dimension = static_cast<uint32_t>(vector.size());
  h.has_ledger = true;
  h.ledger.participations = participations;
  h.ledger.conversion = edgeadmm_wire_RdpConversion_RDP_CONVERSION_IMPROVED;
  if (extra.size() > sizeof(h.algorithm_extra.bytes)) return {};
  std::copy(extra.begin(), extra.end(), h.algorithm_extra.bytes);
  h.algorithm_extra.size = static_cast<pb_size_t>(extra.size());
  std::vector<uint8_t> out(wire::MaxUpdateBytes(vector.size()));
  const StatusWithSize n = wire::EncodeUpdate(
      h, Span<const Real>(vector.data(), vector.size()),
      ByteSpan(reinterpret_cast<std::byte*>(out.data()), out.size()));
  out.resize(n.ok() ? n.size() : 0);
  return out;
}

edgeadmm_wire_StatusBody DecodeStatusBodyOrZero(
    const std::vector<uint8_t>& body) {
  edgeadmm_wire_StatusBody out = edgeadmm_wire_StatusBody_init_zero;
  if (!wire::DecodeStatusBody(
           ConstByteSpan(reinterpret_cast<const std::byte*>(body.data()),
                         body.size()),
           out)
           .ok()) {
    out = edgeadmm_wire_StatusBody_init_zero;
  }
  return out;
}

}  // namespace edgeadmm::testing
