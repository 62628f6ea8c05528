// SemihostingFlash: a model of a NOR flash region kept in a host file
// through Arm semihosting, so its contents survive the end of a QEMU run
// (a reset or power cycle of the emulated board). It has the FlashDevice
// semantics (flash_storage.h): Erase sets a sector to 0xFF, Program only
// clears bits (a 0 -> 1 program is refused, as real flash cannot do it) in
// aligned program units. A new or shorter file reads as erased (0xFF).
//
// Power-loss injection for tests: CutPowerAt(n) makes the n-th Erase or
// Program from then on stop halfway through its range (the first half
// done, the rest untouched) and end the program with an exit status, as if
// the supply failed in the middle of that flash operation.
//
// A test and development model only: semihosting needs QEMU or a debugger.
// A product implements FlashDevice with its flash controller's driver.
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/baremetal/flash_storage.h"

namespace edgeadmm::baremetal {

class SemihostingFlash final : public FlashDevice {
 public:
  // Exit status of a simulated power loss (see CutPowerAt).
  static constexpr int kPowerCutExitCode = 3;

  SemihostingFlash(size_t sector_size, size_t sector_count,
                   size_t program_unit);
  SemihostingFlash(const SemihostingFlash&) = delete;
  SemihostingFlash& operator=(const SemihostingFlash&) = delete;

  // Opens the host file `path` (created if missing) and extends it with
  // 0xFF to the region's size. UNAVAILABLE if the host cannot open it.
  Status Open(const char* path);
  bool is_open() const { return handle_ >= 0; }

  size_t sector_size() const override { return sector_size_; }
  size_t sector_count() const override { return sector_count_; }
  size_t program_unit() const override { return program_unit_; }
  // FAILED_PRECONDITION before Open; INVALID_ARGUMENT out of range or
  // misaligned; Program: FAILED_PRECONDITION if it would set a 0 bit to 1.
  Status Read(size_t offset, ByteSpan out) override;
  Status Erase(size_t sector) override;
  Status Program(size_t offset, ConstByteSpan data) override;

  // Simulated power loss during the `operation`-th Erase/Program from now
  // (1 = the next one); 0 disables it.
  void CutPowerAt(uint32_t operation) { cut_at_ = operation; }
  // Erase and Program calls so far.
  uint32_t operations() const { return operations_; }

 private:
  bool WriteAt(size_t offset, const std::byte* data, size_t size);
  // Counts an operation; true if the power fails during this one.
  bool PowerFailsNow();
  [[noreturn]] void PowerLoss();

  size_t sector_size_;
  size_t sector_count_;
  size_t program_unit_;
  int handle_ = -1;
  uint32_t operations_ = 0;
  uint32_t cut_at_ = 0;
};

}  // namespace edgeadmm::baremetal
