// RamStorage: a Storage of at most `max_keys` keys in growable host buffers,
// the "flash" of a virtual device when the fleet runs without a state
// directory (10,000 FileStorages would each hold a directory fd and fsync
// twice per write). One key for a plain client; a client configured for
// secure rounds also keeps its SecAgg+ session and input records. Host only.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "edgeadmm/storage.h"

namespace edgeadmm::fleet {

class RamStorage final : public Storage {
 public:
  explicit RamStorage(size_t max_keys = 1) : max_keys_(max_keys) {}
  ~RamStorage() = default;

  // Storage contract for at most max_keys keys: a Write under one more key
  // is RESOURCE_EXHAUSTED; INVALID_ARGUMENT for a bad key.
  Status Write(const char* key, ConstByteSpan data) override;
  StatusWithSize Read(const char* key, ByteSpan out) override;

 private:
  struct Entry {
    std::string key;
    std::vector<std::byte> blob;
  };
  Entry* Find(const char* key);

  size_t max_keys_;
  std::vector<Entry> entries_;
};

}  // namespace edgeadmm::fleet
