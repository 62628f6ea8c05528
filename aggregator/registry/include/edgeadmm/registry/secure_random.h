// Bytes from the kernel CSPRNG (getrandom(2)), for PSKs and DRBG seeds.
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/status.h"

namespace edgeadmm::registry {

// Fills `out[0..size)` with bytes from getrandom(2), retrying on EINTR.
// UNAVAILABLE if the kernel refuses.
Status FillSecureRandom(uint8_t* out, size_t size);

}  // namespace edgeadmm::registry
