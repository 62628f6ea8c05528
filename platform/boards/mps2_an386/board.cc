#include "edgeadmm/board/board.h"

#include <cstddef>
#include <cstdint>
#include <new>

#include "edgeadmm/baremetal/flash_storage.h"
#include "edgeadmm/seeded_entropy/seeded_entropy.h"

namespace edgeadmm::board {
namespace {

// Fixed seed of the (unsafe) QEMU entropy: the emulated board has no TRNG.
constexpr uint64_t kQemuEntropySeed = 0x4d5053322d414e33ull;  // "MPS2-AN3"
// FPGAIO CLK100HZ: counts at 100 Hz from reset (32 bits: 497 days).
constexpr uintptr_t kFpgaIoClk100Hz = 0x40028014u;

alignas(SeededEntropy) std::byte entropy_memory[sizeof(SeededEntropy)];
alignas(baremetal::SemihostingFlash) std::byte
    flash_object[sizeof(baremetal::SemihostingFlash)];
alignas(baremetal::FlashStorage) std::byte
    flash_storage_object[sizeof(baremetal::FlashStorage)];
SeededEntropy* entropy = nullptr;
baremetal::SemihostingFlash* flash = nullptr;
baremetal::FlashStorage* flash_storage = nullptr;

}  // namespace

// Constructed on first use in static buffers: no heap, no static
// constructors, no exit-time destructors.
EntropySource& Entropy() {
  if (entropy == nullptr)
    entropy = new (entropy_memory) SeededEntropy(kQemuEntropySeed);
  return *entropy;
}

baremetal::SemihostingFlash& Flash() {
  if (flash == nullptr) {
    flash = new (flash_object) baremetal::SemihostingFlash(
        kFlashSectorBytes, kFlashSectors, kFlashProgramUnit);
  }
  return *flash;
}

Status OpenFlash(const char* host_path) { return Flash().Open(host_path); }

Storage& PersistentStorage() {
  if (flash_storage == nullptr) {
    flash_storage = new (flash_storage_object)
        baremetal::FlashStorage(Flash(), kFlashSectorsPerBank);
  }
  return *flash_storage;
}

uint64_t NowMs() {
  return uint64_t{
             *reinterpret_cast<volatile const uint32_t*>(kFpgaIoClk100Hz)} *
         10;
}

}  // namespace edgeadmm::board
