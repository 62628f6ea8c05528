// Protocol bodies for aggregator tests: an encoded Update and the decoded
// StatusBody of a response.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "edgeadmm/wire/status_body.h"

namespace edgeadmm::testing {

// An encoded Update of `kind` (DELTA_U by default) of `device_id` for
// (job, round) carrying `vector`, with a ledger summary of `participations`
// and `extra` as its algorithm_extra (empty on error).
std::vector<uint8_t> EncodeUpdateBody(
    const std::string& device_id, uint64_t job_id, uint64_t round_id,
    const std::vector<double>& vector, uint32_t participations = 0,
    edgeadmm_wire_UpdateKind kind =
        edgeadmm_wire_UpdateKind_UPDATE_KIND_DELTA_U,
    const std::vector<uint8_t>& extra = {});

// The StatusBody in `body` (zero-initialised if it does not decode).
edgeadmm_wire_StatusBody DecodeStatusBodyOrZero(
    const std::vector<uint8_t>& body);

}  // namespace edgeadmm::testing
