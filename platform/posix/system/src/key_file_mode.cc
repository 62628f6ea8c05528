#include "edgeadmm/posix/key_file_mode.h"

#include <sys/stat.h>

namespace edgeadmm::posix {

bool KeyFileIsShared(const char* path, unsigned* mode) {
  struct stat st {};
  if (stat(path, &st) != 0 || (st.st_mode & 077) == 0) return false;
  if (mode != nullptr) *mode = static_cast<unsigned>(st.st_mode & 07777);
  return true;
}

}  // namespace edgeadmm::posix
