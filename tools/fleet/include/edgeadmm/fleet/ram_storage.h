// RamStorage: a Storage of exactly one key in a growable host buffer, the
// "flash" of a virtual device when the fleet runs without a state directory
// (10,000 FileStorages would each hold a directory fd and fsync twice per
// write). Host only.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "edgeadmm/storage.h"

namespace edgeadmm::fleet {

class RamStorage final : public Storage {
 public:
  RamStorage() = default;
  ~RamStorage() = default;

  // Storage contract for one key: a Write under a second key is
  // RESOURCE_EXHAUSTED; INVALID_ARGUMENT for a bad key.
  Status Write(const char* key, ConstByteSpan data) override;
  StatusWithSize Read(const char* key, ByteSpan out) override;

  size_t bytes() const { return blob_.capacity() + key_.capacity(); }

 private:
  std::string key_;
  std::vector<std::byte> blob_;
  bool present_ = false;
};

}  // namespace edgeadmm::fleet
