#include "edgeadmm/fake/memory_storage.h"

#include <cstring>

namespace edgeadmm {

MemoryStorage::MemoryStorage(ByteSpan memory)
    : memory_(memory), slot_size_(memory.size() / kMaxKeys) {}

MemoryStorage::Entry* MemoryStorage::Find(const char* key) {
  for (Entry& e : entries_) {
    if (e.used && std::strcmp(e.key, key) == 0) return &e;
  }
  return nullptr;
}

Status MemoryStorage::Write(const char* key, ConstByteSpan data) {
  if (!IsValidStorageKey(key)) return Status::InvalidArgument();
  if (failures_left_ > 0) {
    --failures_left_;
    return failure_;
  }
  if (data.size() > slot_size_) return Status::ResourceExhausted();
  Entry* entry = Find(key);
  if (entry == nullptr) {
    for (Entry& e : entries_) {
      if (!e.used) {
        entry = &e;
        break;
      }
    }
    if (entry == nullptr) return Status::ResourceExhausted();
    std::strcpy(entry->key, key);
    entry->used = true;
  }
  const size_t slot = static_cast<size_t>(entry - entries_);
  if (!data.empty()) {
    std::memcpy(memory_.data() + slot * slot_size_, data.data(), data.size());
  }
  entry->size = data.size();
  ++write_count_;
  return Status::Ok();
}

StatusWithSize MemoryStorage::Read(const char* key, ByteSpan out) {
  if (!IsValidStorageKey(key)) {
    return StatusWithSize(Status::InvalidArgument(), 0);
  }
  const Entry* entry = Find(key);
  if (entry == nullptr) return StatusWithSize(Status::NotFound(), 0);
  if (out.size() < entry->size) {
    return StatusWithSize(Status::ResourceExhausted(), entry->size);
  }
  const size_t slot = static_cast<size_t>(entry - entries_);
  if (entry->size > 0) {
    std::memcpy(out.data(), memory_.data() + slot * slot_size_, entry->size);
  }
  return StatusWithSize(entry->size);
}

Status MemoryStorage::Erase(const char* key) {
  if (!IsValidStorageKey(key)) return Status::InvalidArgument();
  Entry* entry = Find(key);
  if (entry == nullptr) return Status::NotFound();
  entry->used = false;
  return Status::Ok();
}

void MemoryStorage::FailWrites(uint32_t count, Status status) {
  failures_left_ = count;
  failure_ = status;
}

}  // namespace edgeadmm
