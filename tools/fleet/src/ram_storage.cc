#include "edgeadmm/fleet/ram_storage.h"

#include <cstring>

namespace edgeadmm::fleet {

RamStorage::Entry* RamStorage::Find(const char* key) {
  for (Entry& e : entries_) {
    if (e.key == key) return &e;
  }
  return nullptr;
}

Status RamStorage::Write(const char* key, ConstByteSpan data) {
  if (!IsValidStorageKey(key)) return Status::InvalidArgument();
  Entry* e = Find(key);
  if (e == nullptr) {
    if (entries_.size() >= max_keys_) return Status::ResourceExhausted();
    entries_.push_back(Entry{key, {}});
    e = &entries_.back();
  }
  e->blob.assign(data.begin(), data.end());
  return Status::Ok();
}

StatusWithSize RamStorage::Read(const char* key, ByteSpan out) {
  if (!IsValidStorageKey(key)) {
    return StatusWithSize(Status::InvalidArgument(), 0);
  }
  const Entry* e = Find(key);
  if (e == nullptr) return StatusWithSize(Status::NotFound(), 0);
  if (out.size() < e->blob.size()) {
    return StatusWithSize(Status::ResourceExhausted(), e->blob.size());
  }
  if (!e->blob.empty()) std::memcpy(out.data(), e->blob.data(), e->blob.size());
  return StatusWithSize(e->blob.size());
}

}  // namespace edgeadmm::fleet
