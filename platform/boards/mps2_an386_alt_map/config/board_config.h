// Configuration of the mps2_an386_alt_map board (the MPS2-AN386 under QEMU
// with another memory map and flash layout), read by ../mps2_an386/board.cc.
#pragma once

#include <cstddef>
#include <cstdint>

namespace edgeadmm::board::config {

// The flash region for persistent state: 128 KiB in sectors of 4 KiB (like
// an STM32F4's small sectors or an nRF52's pages), 8-byte program units.
inline constexpr size_t kFlashSectorBytes = 4096;
inline constexpr size_t kFlashSectors = 32;
inline constexpr size_t kFlashProgramUnit = 8;
// Sectors per bank of the FlashStorage: two 8 KiB banks per key, 8 keys.
inline constexpr size_t kFlashSectorsPerBank = 2;
// The provisioning record: one 4 KiB sector the firmware only reads.
inline constexpr size_t kProvisioningBytes = 4096;

// Backing files of the flash model, relative to QEMU's working directory.
inline constexpr char kStateFile[] = "state-alt-map.bin";
inline constexpr char kProvisioningFile[] = "provision.bin";

// Fixed seed of the (unsafe) entropy: the emulated board has no TRNG.
inline constexpr uint64_t kEntropySeed = 0x414c542d4d415021ull;  // "ALT-MAP!"

}  // namespace edgeadmm::board::config
