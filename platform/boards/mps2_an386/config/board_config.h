// Configuration of the MPS2-AN386 board under QEMU (board.cc, shared with
// the board variants in ../*): its flash model's geometry and backing
// files, its entropy seed. A variant has a config/board_config.h of its own.
#pragma once

#include <cstddef>
#include <cstdint>

namespace edgeadmm::board::config {

// The flash region for persistent state: 64 KiB in sectors of 2 KiB,
// programmed in 8-byte units (like an STM32L4's pages and double words).
inline constexpr size_t kFlashSectorBytes = 2048;
inline constexpr size_t kFlashSectors = 32;
inline constexpr size_t kFlashProgramUnit = 8;
// Sectors per bank of the FlashStorage: two 8 KiB banks per key, 4 keys.
inline constexpr size_t kFlashSectorsPerBank = 4;
// The provisioning record: one sector the firmware only reads.
inline constexpr size_t kProvisioningBytes = 2048;

// Backing files of the flash model, relative to QEMU's working directory.
inline constexpr char kStateFile[] = "state.bin";
inline constexpr char kProvisioningFile[] = "provision.bin";

// Fixed seed of the (unsafe) entropy: the emulated board has no TRNG.
inline constexpr uint64_t kEntropySeed = 0x4d5053322d414e33ull;  // "MPS2-AN3"

}  // namespace edgeadmm::board::config
