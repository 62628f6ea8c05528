// Storage: the persistence port of the SDK (one named blob per key).
//
// Implementations: FileStorage (platform/posix/system, atomic rename),
// MemoryStorage (testing/), a flash-backed store on boards. Keys are
// short ASCII names ([A-Za-z0-9._-], no leading '.', at most kMaxKeyLength).
#pragma once

#include <cstddef>

#include "edgeadmm/span.h"
#include "edgeadmm/status.h"

namespace edgeadmm {

class Storage {
 public:
  static constexpr size_t kMaxKeyLength = 63;

  // Replaces the blob stored under `key` by `data`, atomically: after a
  // crash or power loss a later Read sees either the old or the new blob,
  // never a mix. INVALID_ARGUMENT for a bad key, RESOURCE_EXHAUSTED if it
  // does not fit, UNAVAILABLE on an I/O error (the old blob is kept).
  virtual Status Write(const char* key, ConstByteSpan data) = 0;

  // Copies the blob stored under `key` into `out` and returns its size.
  // NOT_FOUND if there is none, RESOURCE_EXHAUSTED if `out` is too small
  // (the returned size is then the size needed), INVALID_ARGUMENT for a bad
  // key, UNAVAILABLE on an I/O error.
  virtual StatusWithSize Read(const char* key, ByteSpan out) = 0;

 protected:
  ~Storage() = default;
};

// True if `key` is a valid storage key (see above).
bool IsValidStorageKey(const char* key);

}  // namespace edgeadmm
