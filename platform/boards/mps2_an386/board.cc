#include "edgeadmm/board/board.h"

#include <cstddef>
#include <cstdint>
#include <new>

#include "edgeadmm/baremetal/flash_storage.h"
#include "edgeadmm/fake/memory_storage.h"
#include "edgeadmm/fake/test_entropy.h"

namespace edgeadmm::board {
namespace {

// Fixed seed of the (unsafe) QEMU entropy.
constexpr uint64_t kQemuEntropySeed = 0x4d5053322d414e33ull;  // "MPS2-AN3"
constexpr size_t kStorageBytes = 4096;
// FPGAIO CLK100HZ: counts at 100 Hz from reset (32 bits: 497 days).
constexpr uintptr_t kFpgaIoClk100Hz = 0x40028014u;

alignas(TestEntropy) std::byte entropy_memory[sizeof(TestEntropy)];
alignas(MemoryStorage) std::byte storage_object[sizeof(MemoryStorage)];
alignas(8) std::byte storage_memory[kStorageBytes];
alignas(baremetal::SemihostingFlash) std::byte
    flash_object[sizeof(baremetal::SemihostingFlash)];
alignas(baremetal::FlashStorage) std::byte
    flash_storage_object[sizeof(baremetal::FlashStorage)];
TestEntropy* entropy = nullptr;
MemoryStorage* storage = nullptr;
baremetal::SemihostingFlash* flash = nullptr;
baremetal::FlashStorage* flash_storage = nullptr;

}  // namespace

// Constructed on first use in static buffers: no heap, no static
// constructors, no exit-time destructors.
EntropySource& Entropy() {
  if (entropy == nullptr)
    entropy = new (entropy_memory) TestEntropy(kQemuEntropySeed);
  return *entropy;
}

baremetal::SemihostingFlash& Flash() {
  if (flash == nullptr) {
    flash = new (flash_object) baremetal::SemihostingFlash(
        kFlashSectorBytes, kFlashSectors, kFlashProgramUnit);
  }
  return *flash;
}

Status OpenFlash(const char* host_path) {
  const Status opened = Flash().Open(host_path);
  if (opened.ok() && flash_storage == nullptr) {
    flash_storage = new (flash_storage_object)
        baremetal::FlashStorage(*flash, kFlashSectorsPerBank);
  }
  return opened;
}

Storage& PersistentStorage() {
  if (flash_storage != nullptr) return *flash_storage;
  if (storage == nullptr) {
    storage = new (storage_object)
        MemoryStorage(ByteSpan(storage_memory, sizeof(storage_memory)));
  }
  return *storage;
}

uint64_t NowMs() {
  return uint64_t{
             *reinterpret_cast<volatile const uint32_t*>(kFpgaIoClk100Hz)} *
         10;
}

}  // namespace edgeadmm::board
