// MemoryStorage: an in-memory Storage for tests, on caller-owned memory.
//
// The memory is split into kMaxKeys equal slots, one per key. A Write copies
// into the key's slot only after every check passed, so a failed (or
// injected-failure) Write keeps the old blob: the atomic-replace contract.
// No heap; runs on the MCU too.
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/span.h"
#include "edgeadmm/status.h"
#include "edgeadmm/storage.h"

namespace edgeadmm {

class MemoryStorage final : public Storage {
 public:
  static constexpr size_t kMaxKeys = 4;

  // `memory` must outlive the storage; each key may hold up to
  // memory.size() / kMaxKeys bytes.
  explicit MemoryStorage(ByteSpan memory);

  // Storage contract. RESOURCE_EXHAUSTED if the blob exceeds a slot or all
  // kMaxKeys slots are taken by other keys; the injected status (see
  // FailWrites) while failing.
  Status Write(const char* key, ConstByteSpan data) override;
  StatusWithSize Read(const char* key, ByteSpan out) override;

  // Removes `key`. NOT_FOUND if absent, INVALID_ARGUMENT for a bad key.
  Status Erase(const char* key);

  // Makes the next `count` Writes fail with `status` (a simulated I/O error
  // or power loss before the commit point) and keep the old blob.
  void FailWrites(uint32_t count, Status status);

  // Successful Writes so far.
  uint32_t write_count() const { return write_count_; }
  size_t slot_capacity() const { return slot_size_; }

 private:
  struct Entry {
    char key[kMaxKeyLength + 1];
    size_t size;
    bool used;
  };
  Entry* Find(const char* key);

  ByteSpan memory_;
  size_t slot_size_;
  Entry entries_[kMaxKeys] = {};
  uint32_t write_count_ = 0;
  uint32_t failures_left_ = 0;
  Status failure_;
};

}  // namespace edgeadmm
