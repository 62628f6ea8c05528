// Main-stack high-water mark, for footprint reports. The board's startup
// fills the stack with a pattern before main(); StackBytesUsed() finds the
// deepest word that was overwritten since.
#pragma once

#include <cstddef>

namespace edgeadmm::baremetal {

// Bytes of the main stack used so far (peak), as seen by the pattern. Defined
// by the board (platform/boards/<board>/startup.cc).
size_t StackBytesUsed();

// Bytes reserved for the main stack by the board's linker script.
size_t StackBytesReserved();

}  // namespace edgeadmm::baremetal
