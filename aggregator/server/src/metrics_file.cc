#include "edgeadmm/server/metrics_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace edgeadmm::server {
namespace {

host::Error Failed(const std::string& what, const std::string& path) {
  return host::Error(StatusCode::kInternal,
                     what + " " + path + ": " + std::strerror(errno));
}

}  // namespace

host::Error WriteMetricsFile(const std::string& path, const std::string& text) {
  const std::string temporary = path + ".tmp";
  const int fd = open(temporary.c_str(),
                      O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Failed("cannot create", temporary);
  size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const host::Error error = Failed("cannot write", temporary);
      close(fd);
      unlink(temporary.c_str());
      return error;
    }
    written += static_cast<size_t>(n);
  }
  if (close(fd) != 0) {
    const host::Error error = Failed("cannot write", temporary);
    unlink(temporary.c_str());
    return error;
  }
  if (rename(temporary.c_str(), path.c_str()) != 0) {
    const host::Error error = Failed("cannot rename onto", path);
    unlink(temporary.c_str());
    return error;
  }
  return host::Error::Ok();
}

}  // namespace edgeadmm::server
