#include "edgeadmm/baremetal/flash_storage.h"

#include <cstring>

#include "edgeadmm/assert.h"
#include "edgeadmm/crc32.h"

namespace edgeadmm::baremetal {
namespace {

constexpr size_t kMaxProgramUnit = 32;
constexpr size_t kCommitBytes = 8;  // kCommitMagic, ~sequence
constexpr size_t kChunk = 64;       // CRC of flash contents, read in chunks

constexpr size_t RoundUp(size_t n, size_t unit) {
  return (n + unit - 1) / unit * unit;
}

void Put32(std::byte* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<std::byte>(v >> (8 * i));
}

uint32_t Get32(const std::byte* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<uint32_t>(p[i]);
  return v;
}

ConstByteSpan KeyBytes(const char* key) {
  return ConstByteSpan(reinterpret_cast<const std::byte*>(key),
                       std::strlen(key));
}

}  // namespace

FlashStorage::FlashStorage(FlashDevice& device, size_t sectors_per_bank)
    : device_(device), sectors_per_bank_(sectors_per_bank) {
  EDGEADMM_ASSERT(sectors_per_bank > 0);
  EDGEADMM_ASSERT(device.program_unit() <= kMaxProgramUnit);
}

size_t FlashStorage::BankBytes() const {
  return sectors_per_bank_ * device_.sector_size();
}

size_t FlashStorage::BankOffset(size_t slot, size_t bank) const {
  return (2 * slot + bank) * BankBytes();
}

size_t FlashStorage::CommitOffset() const {
  return BankBytes() - RoundUp(kCommitBytes, device_.program_unit());
}

size_t FlashStorage::Capacity() const {
  const size_t header = RoundUp(kHeaderBytes, device_.program_unit());
  return CommitOffset() > header ? CommitOffset() - header : 0;
}

size_t FlashStorage::slot_count() const {
  return device_.sector_count() / (2 * sectors_per_bank_);
}

Status FlashStorage::Inspect(size_t slot, size_t bank, Bank& out) {
  out = Bank();
  const size_t base = BankOffset(slot, bank);
  std::byte commit[kCommitBytes];
  std::byte header[kHeaderBytes];
  if (!device_.Read(base + CommitOffset(), ByteSpan(commit, sizeof(commit)))
           .ok() ||
      !device_.Read(base, ByteSpan(header, sizeof(header))).ok()) {
    return Status::Unavailable();
  }
  const uint32_t sequence = Get32(header + 4);
  const uint32_t size = Get32(header + 8);
  const uint32_t crc = Get32(header + 12);
  const char* key = reinterpret_cast<const char*>(header + 16);
  if (Get32(commit) != kCommitMagic || Get32(commit + 4) != ~sequence ||
      Get32(header) != kHeaderMagic || size > Capacity() ||
      header[kHeaderBytes - 1] != std::byte{0} || !IsValidStorageKey(key)) {
    return Status::Ok();  // erased, torn or never committed: not valid
  }
  uint32_t actual = Crc32(KeyBytes(key));
  const size_t data = base + RoundUp(kHeaderBytes, device_.program_unit());
  std::byte chunk[kChunk];
  for (size_t done = 0; done < size;) {
    const size_t n = size - done < kChunk ? size - done : kChunk;
    if (!device_.Read(data + done, ByteSpan(chunk, n)).ok()) {
      return Status::Unavailable();
    }
    actual = Crc32(ConstByteSpan(chunk, n), actual);
    done += n;
  }
  if (actual != crc) return Status::Ok();
  out.valid = true;
  out.sequence = sequence;
  out.size = size;
  std::memcpy(out.key, key, sizeof(out.key));
  return Status::Ok();
}

Status FlashStorage::Find(const char* key, size_t& slot, int& newest,
                          Bank banks[2]) {
  newest = -1;
  bool have_free = false;
  size_t free_slot = 0;
  for (size_t s = 0; s < slot_count(); ++s) {
    for (size_t b = 0; b < 2; ++b) {
      const Status inspected = Inspect(s, b, banks[b]);
      if (!inspected.ok()) return inspected;
    }
    for (int b = 0; b < 2; ++b) {
      if (banks[b].valid && std::strcmp(banks[b].key, key) == 0 &&
          (newest < 0 || banks[b].sequence > banks[newest].sequence)) {
        newest = b;
      }
    }
    if (newest >= 0) {
      slot = s;
      return Status::Ok();
    }
    if (!have_free && !banks[0].valid && !banks[1].valid) {
      have_free = true;
      free_slot = s;
    }
  }
  if (!have_free) return Status::NotFound();
  slot = free_slot;
  banks[0] = Bank();
  banks[1] = Bank();
  return Status::Ok();
}

Status FlashStorage::Write(const char* key, ConstByteSpan data) {
  if (!IsValidStorageKey(key)) return Status::InvalidArgument();
  if (data.size() > Capacity()) return Status::ResourceExhausted();
  size_t slot = 0;
  int newest = -1;
  Bank banks[2];
  const Status found = Find(key, slot, newest, banks);
  if (found.code() == StatusCode::kNotFound) return Status::ResourceExhausted();
  if (!found.ok()) return found;

  // The other bank than the current blob's: the current one stays intact
  // until the commit word of the new one is programmed.
  const size_t target = newest == 0 ? 1 : 0;
  const uint32_t sequence = newest >= 0 ? banks[newest].sequence + 1 : 1;
  const size_t unit = device_.program_unit();
  const size_t base = BankOffset(slot, target);
  for (size_t i = 0; i < sectors_per_bank_; ++i) {
    if (!device_.Erase(base / device_.sector_size() + i).ok()) {
      return Status::Unavailable();
    }
  }

  // Header (padded with 0xFF to the program unit).
  std::byte header[RoundUp(kHeaderBytes, kMaxProgramUnit)];
  std::memset(header, 0xff, sizeof(header));
  Put32(header, kHeaderMagic);
  Put32(header + 4, sequence);
  Put32(header + 8, static_cast<uint32_t>(data.size()));
  Put32(header + 12, Crc32(data, Crc32(KeyBytes(key))));
  std::memset(header + 16, 0, kMaxKeyLength + 1);
  std::memcpy(header + 16, key, std::strlen(key));
  const size_t header_bytes = RoundUp(kHeaderBytes, unit);
  if (!device_.Program(base, ConstByteSpan(header, header_bytes)).ok()) {
    return Status::Unavailable();
  }

  // Data: whole program units straight from `data`, the tail padded.
  const size_t whole = data.size() / unit * unit;
  if (whole > 0 &&
      !device_.Program(base + header_bytes, data.first(whole)).ok()) {
    return Status::Unavailable();
  }
  if (whole < data.size()) {
    std::byte tail[kMaxProgramUnit];
    std::memset(tail, 0xff, sizeof(tail));
    std::memcpy(tail, data.data() + whole, data.size() - whole);
    if (!device_.Program(base + header_bytes + whole, ConstByteSpan(tail, unit))
             .ok()) {
      return Status::Unavailable();
    }
  }

  // The commit point.
  std::byte commit[RoundUp(kCommitBytes, kMaxProgramUnit)];
  std::memset(commit, 0xff, sizeof(commit));
  Put32(commit, kCommitMagic);
  Put32(commit + 4, ~sequence);
  if (!device_
           .Program(base + CommitOffset(),
                    ConstByteSpan(commit, RoundUp(kCommitBytes, unit)))
           .ok()) {
    return Status::Unavailable();
  }
  return Status::Ok();
}

StatusWithSize FlashStorage::Read(const char* key, ByteSpan out) {
  if (!IsValidStorageKey(key)) {
    return StatusWithSize(Status::InvalidArgument(), 0);
  }
  size_t slot = 0;
  int newest = -1;
  Bank banks[2];
  const Status found = Find(key, slot, newest, banks);
  if (found.code() == StatusCode::kUnavailable) {
    return StatusWithSize(Status::Unavailable(), 0);
  }
  if (newest < 0) return StatusWithSize(Status::NotFound(), 0);
  const Bank& bank = banks[newest];
  if (out.size() < bank.size) {
    return StatusWithSize(Status::ResourceExhausted(), bank.size);
  }
  const size_t data = BankOffset(slot, static_cast<size_t>(newest)) +
                      RoundUp(kHeaderBytes, device_.program_unit());
  if (!device_.Read(data, out.first(bank.size)).ok()) {
    return StatusWithSize(Status::Unavailable(), 0);
  }
  return StatusWithSize(bank.size);
}

}  // namespace edgeadmm::baremetal
