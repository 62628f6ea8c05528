// The board interface (edgeadmm/board/board.h) on the MPS2-AN386 under QEMU.
// The emulated board has no TRNG and no flash the firmware can erase and
// program, so:
//   - Entropy() is a deterministic SeededEntropy (platform/seeded_entropy)
//     with a fixed seed: UNSAFE FOR PRODUCTION, every "random" value is
//     predictable;
//   - Flash() and the provisioning record are SemihostingFlash models kept
//     in host files in QEMU's working directory, which survive the end of a
//     QEMU run like flash survives a power cycle;
//   - the console and the command line are semihosting calls.
// The geometry, the state file's name and the seed are compile definitions
// (EDGEADMM_QEMU_*) that board.cmake sets from the board folder's
// CMakeLists.txt, so a board variant reuses this file unchanged.
#include "edgeadmm/board/board.h"

#include <cstddef>
#include <cstdint>
#include <new>

#include "edgeadmm/baremetal/flash_storage.h"
#include "edgeadmm/baremetal/semihosting.h"
#include "edgeadmm/baremetal/semihosting_flash.h"
#include "edgeadmm/result.h"
#include "edgeadmm/seeded_entropy/seeded_entropy.h"

namespace edgeadmm::board {
namespace {

static_assert(kPowerCutExitCode ==
                  baremetal::SemihostingFlash::kPowerCutExitCode,
              "the flash model ends a power cut with the interface's status");

// The state region: sectors of 8-byte program units (like an STM32L4's
// pages and double words), FlashStorage banks of kSectorsPerBank sectors.
constexpr size_t kFlashSectorBytes = EDGEADMM_QEMU_FLASH_SECTOR_BYTES;
constexpr size_t kFlashSectors = EDGEADMM_QEMU_FLASH_SECTORS;
constexpr size_t kFlashProgramUnit = 8;
constexpr size_t kSectorsPerBank = EDGEADMM_QEMU_SECTORS_PER_BANK;
constexpr char kStateFile[] = EDGEADMM_QEMU_STATE_FILE;
// The provisioning record: one sector the firmware only reads.
constexpr size_t kProvisioningBytes = EDGEADMM_QEMU_PROVISIONING_BYTES;
constexpr char kProvisioningFile[] = "provision.bin";
// Fixed seed of the (unsafe) entropy: the emulated board has no TRNG.
constexpr uint64_t kEntropySeed = EDGEADMM_QEMU_ENTROPY_SEED;

// FPGAIO CLK100HZ: counts at 100 Hz from reset (32 bits: 497 days).
constexpr uintptr_t kFpgaIoClk100Hz = 0x40028014u;

alignas(SeededEntropy) std::byte entropy_memory[sizeof(SeededEntropy)];
alignas(baremetal::SemihostingFlash) std::byte
    flash_object[sizeof(baremetal::SemihostingFlash)];
alignas(baremetal::SemihostingFlash) std::byte
    provisioning_object[sizeof(baremetal::SemihostingFlash)];
alignas(baremetal::FlashStorage) std::byte
    flash_storage_object[sizeof(baremetal::FlashStorage)];
SeededEntropy* entropy = nullptr;
baremetal::SemihostingFlash* flash = nullptr;
baremetal::SemihostingFlash* provisioning = nullptr;
baremetal::FlashStorage* flash_storage = nullptr;

baremetal::SemihostingFlash& FlashModel() {
  if (flash == nullptr) {
    flash = new (flash_object) baremetal::SemihostingFlash(
        kFlashSectorBytes, kFlashSectors, kFlashProgramUnit);
  }
  return *flash;
}

}  // namespace

// Constructed on first use in static buffers: no heap, no static
// constructors, no exit-time destructors.
EntropySource& Entropy() {
  if (entropy == nullptr)
    entropy = new (entropy_memory) SeededEntropy(kEntropySeed);
  return *entropy;
}

baremetal::FlashDevice& Flash() { return FlashModel(); }

Status OpenStorage() {
  if (FlashModel().is_open()) return Status::Ok();
  return FlashModel().Open(kStateFile);
}

Storage& PersistentStorage() {
  if (flash_storage == nullptr) {
    flash_storage = new (flash_storage_object)
        baremetal::FlashStorage(Flash(), kSectorsPerBank);
  }
  return *flash_storage;
}

Status ReadProvisioning(ByteSpan out) {
  if (provisioning == nullptr) {
    provisioning = new (provisioning_object)
        baremetal::SemihostingFlash(kProvisioningBytes, 1, kFlashProgramUnit);
  }
  if (!provisioning->is_open()) {
    EDGEADMM_TRY(provisioning->Open(kProvisioningFile));
  }
  return provisioning->Read(0, out);
}

uint64_t NowMs() {
  return uint64_t{
             *reinterpret_cast<volatile const uint32_t*>(kFpgaIoClk100Hz)} *
         10;
}

void ConsoleWrite(const char* text) { baremetal::SemihostingWrite(text); }

void Halt(int exit_code) { baremetal::SemihostingExit(exit_code); }

bool CommandLine(char* buffer, size_t size) {
  return baremetal::SemihostingCommandLine(buffer, size);
}

bool CutPowerDuringFlashOperation(uint32_t operation) {
  FlashModel().CutPowerAt(operation);
  return true;
}

uint32_t FlashOperations() { return FlashModel().operations(); }

}  // namespace edgeadmm::board
