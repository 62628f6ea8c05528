#include "edgeadmm/posix/getrandom_entropy.h"

#include <sys/random.h>

#include <cerrno>

namespace edgeadmm {

Status GetrandomEntropy::Read(ByteSpan out) {
  size_t done = 0;
  while (done < out.size()) {
    const ssize_t n = getrandom(out.data() + done, out.size() - done, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::Unavailable();
    }
    done += static_cast<size_t>(n);
  }
  return Status::Ok();
}

}  // namespace edgeadmm
