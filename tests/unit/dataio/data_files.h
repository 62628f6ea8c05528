// Paths of the shared data sets and temporary files for the loader tests.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

namespace edgeadmm {
namespace dataio_testing {

inline std::string DataPath(const std::string& file) {
  const char* dir = std::getenv("EDGEADMM_DATA");
  return std::string(dir != nullptr ? dir : "../shared/data") + "/" + file;
}

// A file under $TMPDIR (or /tmp) removed when the object goes away.
class TempFile {
 public:
  explicit TempFile(const std::string& contents) {
    const char* dir = std::getenv("TMPDIR");
    std::string pattern =
        std::string(dir != nullptr ? dir : "/tmp") + "/edgeadmm_dataio_XXXXXX";
    const int fd = mkstemp(pattern.data());
    if (fd >= 0) close(fd);
    path_ = pattern;
    std::ofstream(path_, std::ios::binary) << contents;
  }
  ~TempFile() { std::remove(path_.c_str()); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace dataio_testing
}  // namespace edgeadmm
