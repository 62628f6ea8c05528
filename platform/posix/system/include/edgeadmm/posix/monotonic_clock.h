// The POSIX monotonic clock in milliseconds (CLOCK_MONOTONIC): the one time
// source of the Linux transport, the batched I/O loop and the daemon.
#pragma once

#include <cstdint>

namespace edgeadmm::posix {

// Milliseconds since an arbitrary fixed point; never decreases.
uint64_t MonotonicMs();

}  // namespace edgeadmm::posix
