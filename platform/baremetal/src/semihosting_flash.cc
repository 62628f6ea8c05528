#include "edgeadmm/baremetal/semihosting_flash.h"

#include <cstring>

#include "edgeadmm/baremetal/format.h"
#include "edgeadmm/baremetal/semihosting.h"

namespace edgeadmm::baremetal {
namespace {

constexpr size_t kChunk = 64;

}  // namespace

SemihostingFlash::SemihostingFlash(size_t sector_size, size_t sector_count,
                                   size_t program_unit)
    : sector_size_(sector_size),
      sector_count_(sector_count),
      program_unit_(program_unit) {}

Status SemihostingFlash::Open(const char* path) {
  if (handle_ >= 0) SemihostingClose(handle_);
  handle_ = SemihostingOpen(path, SemihostingMode::kReadWriteBinary);
  if (handle_ < 0) {
    handle_ = SemihostingOpen(path, SemihostingMode::kReadWriteCreateBinary);
  }
  if (handle_ < 0) return Status::Unavailable();
  const long length = SemihostingFileLength(handle_);
  const size_t total = sector_size_ * sector_count_;
  if (length < 0) return Status::Unavailable();
  // A new (or short) file: the rest of the region is erased flash.
  std::byte erased[kChunk];
  std::memset(erased, 0xff, sizeof(erased));
  for (size_t at = static_cast<size_t>(length); at < total;) {
    const size_t n = total - at < kChunk ? total - at : kChunk;
    if (!WriteAt(at, erased, n)) return Status::Unavailable();
    at += n;
  }
  return Status::Ok();
}

bool SemihostingFlash::WriteAt(size_t offset, const std::byte* data,
                               size_t size) {
  return SemihostingSeek(handle_, static_cast<uint32_t>(offset)) &&
         SemihostingWriteFile(handle_, data, size);
}

Status SemihostingFlash::Read(size_t offset, ByteSpan out) {
  if (handle_ < 0) return Status::FailedPrecondition();
  if (offset > sector_size_ * sector_count_ ||
      out.size() > sector_size_ * sector_count_ - offset) {
    return Status::InvalidArgument();
  }
  if (out.empty()) return Status::Ok();
  if (!SemihostingSeek(handle_, static_cast<uint32_t>(offset)) ||
      !SemihostingReadFile(handle_, out.data(), out.size())) {
    return Status::Unavailable();
  }
  return Status::Ok();
}

bool SemihostingFlash::PowerFailsNow() {
  ++operations_;
  return cut_at_ != 0 && operations_ == cut_at_;
}

void SemihostingFlash::PowerLoss() {
  char text[80];
  Format(text, sizeof(text), "flash: power lost during operation %u\n",
         static_cast<unsigned>(operations_));
  SemihostingWrite(text);
  SemihostingExit(kPowerCutExitCode);
}

Status SemihostingFlash::Erase(size_t sector) {
  if (handle_ < 0) return Status::FailedPrecondition();
  if (sector >= sector_count_) return Status::InvalidArgument();
  const bool cut = PowerFailsNow();
  const size_t size = cut ? sector_size_ / 2 : sector_size_;
  std::byte erased[kChunk];
  std::memset(erased, 0xff, sizeof(erased));
  for (size_t done = 0; done < size;) {
    const size_t n = size - done < kChunk ? size - done : kChunk;
    if (!WriteAt(sector * sector_size_ + done, erased, n)) {
      return Status::Unavailable();
    }
    done += n;
  }
  if (cut) PowerLoss();
  return Status::Ok();
}

Status SemihostingFlash::Program(size_t offset, ConstByteSpan data) {
  if (handle_ < 0) return Status::FailedPrecondition();
  const size_t total = sector_size_ * sector_count_;
  if (offset % program_unit_ != 0 || data.size() % program_unit_ != 0 ||
      offset > total || data.size() > total - offset) {
    return Status::InvalidArgument();
  }
  // NOR flash clears bits only: refuse a program that would set one.
  std::byte old[kChunk];
  for (size_t done = 0; done < data.size();) {
    const size_t n = data.size() - done < kChunk ? data.size() - done : kChunk;
    const Status read = Read(offset + done, ByteSpan(old, n));
    if (!read.ok()) return read;
    for (size_t i = 0; i < n; ++i) {
      if ((~old[i] & data[done + i]) != std::byte{0}) {
        return Status::FailedPrecondition();
      }
    }
    done += n;
  }
  const bool cut = PowerFailsNow();
  const size_t size =
      cut ? data.size() / 2 / program_unit_ * program_unit_ : data.size();
  if (size > 0 && !WriteAt(offset, data.data(), size)) {
    return Status::Unavailable();
  }
  if (cut) PowerLoss();
  return Status::Ok();
}

}  // namespace edgeadmm::baremetal
