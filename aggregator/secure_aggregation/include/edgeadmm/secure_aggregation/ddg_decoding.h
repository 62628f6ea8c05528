// The gateway's decoding of a distributed discrete Gaussian round (Kairouz,
// Liu and Steinke, ICML 2021, Alg. 2, "KLS"): from the unmasked sum of the
// survivors' encoded vectors (d' words mod 2^b, unmasking.h) back to the
// real sum of their clipped updates. Each word is read as the centred
// integer in [-2^(b-1), 2^(b-1)) (CentreFromModulus), scaled by the grid
// step gamma, rotated back with the round's public seed (DdgUnrotate, the
// inverse of the devices' DdgRotate) and truncated to the first d entries.
// Exact up to the devices' rounding and noise while the integer sum stays
// inside the centred range (b is chosen so: ddg_parameters.h). Host code.
#pragma once

#include <cstdint>
#include <vector>

#include "edgeadmm/host/error.h"
#include "edgeadmm/secagg/ddg_plan.h"
#include "edgeadmm/span.h"

namespace edgeadmm::secure_aggregation {

// INVALID_ARGUMENT when ValidateDdgRoundPlan refuses `plan`, `sum` does
// not hold DdgPaddedDimension(plan.dimension) words or `seed` is not 32
// bytes.
host::ErrorOr<std::vector<double>> DecodeDdgSum(Span<const uint32_t> sum,
                                                const DdgRoundPlan& plan,
                                                ConstByteSpan seed,
                                                uint64_t round_id);

}  // namespace edgeadmm::secure_aggregation
