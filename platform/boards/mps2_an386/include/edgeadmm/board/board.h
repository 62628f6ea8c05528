// Board services of the MPS2-AN386 port (platform/boards/mps2_an386): the
// entropy and storage ports a firmware passes to the SDK's Init, a clock.
#pragma once

#include <cstdint>

#include "edgeadmm/entropy_source.h"
#include "edgeadmm/storage.h"

namespace edgeadmm::board {

// Entropy for the DRBG seed. The emulated MPS2-AN386 has no TRNG, so this is
// a deterministic TestEntropy with a fixed seed: UNSAFE FOR PRODUCTION, every
// "random" noise value is predictable. A real board returns its hardware
// TRNG here (e.g. an STM32 RNG peripheral with its health tests enabled).
EntropySource& Entropy();

// Persistent storage for the device state: a RAM-backed model of a flash
// region (MemoryStorage over a static 4 KiB buffer). Contents survive a
// software reset of the SDK objects but not a power cycle or a new QEMU run.
Storage& PersistentStorage();

// Monotonic milliseconds since reset, from the FPGA's 100 Hz counter
// (FPGAIO CLK100HZ): 10 ms resolution, enough for CoAP and lwIP timers.
uint64_t NowMs();

}  // namespace edgeadmm::board
