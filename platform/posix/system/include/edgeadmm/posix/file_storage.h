// FileStorage: the POSIX storage port, one file per key in a directory.
//
// Write is an atomic replace: write "<key>.tmp", fsync it, rename(2) it over
// "<key>", fsync the directory. A reader (or a reboot) sees the old or the
// new file, never a partial one. A "<key>.tmp" left by a crash is ignored by
// Read (keys cannot end in ".tmp") and overwritten by the next Write. Files
// are created with mode 0600. No heap after Open. Not thread-safe for
// concurrent Writes of the same key.
#pragma once

#include "edgeadmm/storage.h"

namespace edgeadmm {

class FileStorage final : public Storage {
 public:
  FileStorage() = default;
  ~FileStorage();
  FileStorage(const FileStorage&) = delete;
  FileStorage& operator=(const FileStorage&) = delete;

  // Opens the existing directory `directory` (kept open). NOT_FOUND if it
  // does not exist, INVALID_ARGUMENT if it is not a directory, UNAVAILABLE on
  // other errors. Calling Open again switches directories.
  Status Open(const char* directory);

  // Storage contract; FAILED_PRECONDITION before Open. Keys ending in ".tmp"
  // are INVALID_ARGUMENT (reserved for the temporary files). Write returns
  // RESOURCE_EXHAUSTED on ENOSPC/EDQUOT, UNAVAILABLE on other I/O errors.
  Status Write(const char* key, ConstByteSpan data) override;
  StatusWithSize Read(const char* key, ByteSpan out) override;

 private:
  int directory_fd_ = -1;
};

}  // namespace edgeadmm
