// Board services of the MPS2-AN386 port (platform/boards/mps2_an386): the
// entropy and storage ports a firmware passes to the SDK's Init, a clock.
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/baremetal/semihosting_flash.h"
#include "edgeadmm/entropy_source.h"
#include "edgeadmm/status.h"
#include "edgeadmm/storage.h"

namespace edgeadmm::board {

// Entropy for the DRBG seed. The emulated MPS2-AN386 has no TRNG, so this is
// a deterministic SeededEntropy (platform/seeded_entropy) with a fixed seed:
// UNSAFE FOR PRODUCTION, every "random" noise value is predictable. A real
// board returns its hardware TRNG here (e.g. an STM32 RNG peripheral with its
// health tests enabled).
EntropySource& Entropy();

// The board's flash region for persistent state. The emulated MPS2-AN386
// has no flash the firmware can erase and program, so it is a model kept in
// a host file through semihosting (SemihostingFlash): 64 KiB in sectors of
// 2 KiB, programmed in 8-byte units (like an STM32L4's pages and double
// words), surviving the end of a QEMU run. A real board implements
// baremetal::FlashDevice with its flash driver over a region its linker
// script reserves (docs/porting.md, "Storage").
inline constexpr size_t kFlashSectorBytes = 2048;
inline constexpr size_t kFlashSectors = 32;
inline constexpr size_t kFlashProgramUnit = 8;
// Sectors per bank of the FlashStorage: two 8 KiB banks per key, 4 keys.
inline constexpr size_t kFlashSectorsPerBank = 4;
baremetal::SemihostingFlash& Flash();

// Opens (or creates, erased) the flash model's backing file `host_path` on
// the host (relative to QEMU's working directory). UNAVAILABLE if the host
// cannot open it.
Status OpenFlash(const char* host_path);

// Persistent storage for the device state (the SDK's Storage port): a
// FlashStorage over Flash(), whose contents survive a reset and a new QEMU
// run with the same backing file, atomic across a power loss
// (baremetal/flash_storage.h): up to 4 keys of up to 8,104 bytes each.
// Before OpenFlash every Read and Write fails with UNAVAILABLE (no flash).
Storage& PersistentStorage();

// Monotonic milliseconds since reset, from the FPGA's 100 Hz counter
// (FPGAIO CLK100HZ): 10 ms resolution, enough for CoAP and lwIP timers.
uint64_t NowMs();

}  // namespace edgeadmm::board
