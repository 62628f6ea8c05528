#include "edgeadmm/fleet/ram_storage.h"

#include <cstring>

namespace edgeadmm::fleet {

Status RamStorage::Write(const char* key, ConstByteSpan data) {
  if (!IsValidStorageKey(key)) return Status::InvalidArgument();
  if (present_ && key_ != key) return Status::ResourceExhausted();
  key_ = key;
  blob_.assign(data.begin(), data.end());
  present_ = true;
  return Status::Ok();
}

StatusWithSize RamStorage::Read(const char* key, ByteSpan out) {
  if (!IsValidStorageKey(key)) {
    return StatusWithSize(Status::InvalidArgument(), 0);
  }
  if (!present_ || key_ != key) return StatusWithSize(Status::NotFound(), 0);
  if (out.size() < blob_.size()) {
    return StatusWithSize(Status::ResourceExhausted(), blob_.size());
  }
  if (!blob_.empty()) std::memcpy(out.data(), blob_.data(), blob_.size());
  return StatusWithSize(blob_.size());
}

}  // namespace edgeadmm::fleet
