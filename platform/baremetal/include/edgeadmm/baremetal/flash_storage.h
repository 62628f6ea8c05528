// FlashDevice: the flash port of an MCU board (its flash driver), and
// FlashStorage: the SDK's Storage port on top of any FlashDevice, with the
// atomic replace the DeviceClient relies on (persist-before-send).
//
// Flash semantics a FlashDevice must have (NOR flash, as on STM32/nRF/...):
//   - Erase(sector) sets every byte of the sector to 0xFF;
//   - Program(offset, data) can only clear bits (1 -> 0): programming a 1
//     over a 0 is refused (FAILED_PRECONDITION, nothing written); offset and
//     size are multiples of program_unit();
//   - operations complete in the order they are issued; one cut short by a
//     power loss may leave its range in any state (partly programmed or
//     erased), but never touches any other range.
// A real board implements FlashDevice with its flash driver over a region
// reserved in its linker script; the MPS2-AN386 board models it with a host
// file through semihosting (board::Flash(), platform/boards/mps2_an386).
//
// FlashStorage layout: the device is split into slots of two banks of
// `sectors_per_bank` sectors each; a slot holds one key. A bank is
//   [header: magic, sequence, size, CRC-32 of key and data, key (64 bytes)]
//   [data, padded to the program unit]   ...   [commit word at the bank's end]
// Write(key) erases the slot's older bank, programs header and data, and
// programs the commit word LAST: the commit point. Read takes the committed
// bank (commit word present, header and CRC valid) with the higher sequence.
// A power loss before the commit word leaves the older bank, which the write
// did not touch, as the current blob: a later Read sees the old or the new
// blob, never a mix. No heap; about 400 bytes of stack.
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/span.h"
#include "edgeadmm/status.h"
#include "edgeadmm/storage.h"

namespace edgeadmm::baremetal {

class FlashDevice {
 public:
  virtual size_t sector_size() const = 0;
  virtual size_t sector_count() const = 0;
  // Offsets and sizes of Program are multiples of this (a power of two).
  virtual size_t program_unit() const = 0;

  // Copies flash contents at `offset` into `out`. INVALID_ARGUMENT out of
  // range, UNAVAILABLE on an I/O error.
  virtual Status Read(size_t offset, ByteSpan out) = 0;
  // Sets every byte of sector `sector` to 0xFF.
  virtual Status Erase(size_t sector) = 0;
  // Clears the bits of `data` that are 0 at `offset` (see above).
  virtual Status Program(size_t offset, ConstByteSpan data) = 0;

 protected:
  ~FlashDevice() = default;
};

class FlashStorage final : public Storage {
 public:
  static constexpr uint32_t kHeaderMagic = 0x53464145;            // "EAFS"
  static constexpr uint32_t kCommitMagic = 0x54494d43;            // "CMIT"
  static constexpr size_t kHeaderBytes = 16 + kMaxKeyLength + 1;  // 80

  // `device` must outlive the storage; every slot is two banks of
  // `sectors_per_bank` sectors (a key holds up to Capacity() bytes).
  FlashStorage(FlashDevice& device, size_t sectors_per_bank);

  // Storage contract. RESOURCE_EXHAUSTED if the blob exceeds Capacity() or
  // every slot holds another key; UNAVAILABLE on a flash error (the old blob
  // is kept).
  Status Write(const char* key, ConstByteSpan data) override;
  StatusWithSize Read(const char* key, ByteSpan out) override;

  size_t Capacity() const;
  size_t slot_count() const;

 private:
  struct Bank {
    bool valid = false;
    uint32_t sequence = 0;
    uint32_t size = 0;
    char key[kMaxKeyLength + 1] = {};
  };
  size_t BankBytes() const;
  size_t BankOffset(size_t slot, size_t bank) const;
  size_t CommitOffset() const;
  // Reads and checks one bank (commit word, header, CRC).
  Status Inspect(size_t slot, size_t bank, Bank& out);
  // The slot holding `key` and its newest committed bank (-1 if none).
  Status Find(const char* key, size_t& slot, int& newest, Bank banks[2]);

  FlashDevice& device_;
  size_t sectors_per_bank_;
};

}  // namespace edgeadmm::baremetal
