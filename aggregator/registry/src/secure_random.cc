#include "edgeadmm/registry/secure_random.h"

#include <sys/random.h>

#include <cerrno>

namespace edgeadmm::registry {

Status FillSecureRandom(uint8_t* out, size_t size) {
  size_t done = 0;
  while (done < size) {
    const ssize_t n = getrandom(out + done, size - done, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::Unavailable();
    }
    done += static_cast<size_t>(n);
  }
  return Status::Ok();
}

}  // namespace edgeadmm::registry
