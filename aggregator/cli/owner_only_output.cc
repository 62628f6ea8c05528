#include "owner_only_output.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace edgeadmm::cli {
namespace {

host::Error Fail(const char* what, const std::string& path) {
  return host::Error::Unavailable(std::string("cannot ") + what + " " + path +
                                  ": " + std::strerror(errno));
}

bool WriteAll(int fd, const std::string& bytes) {
  for (size_t done = 0; done < bytes.size();) {
    const ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

host::Error WriteOwnerOnlyFile(const std::string& path,
                               const std::string& bytes) {
  const std::string pattern = path + ".XXXXXX";
  std::vector<char> temp(pattern.begin(), pattern.end());
  temp.push_back('\0');
  // mkstemp: a new file (O_CREAT | O_EXCL), mode 0600.
  const int fd = mkstemp(temp.data());
  if (fd < 0) return Fail("create a temporary file for", path);
  host::Error result = WriteAll(fd, bytes) && fsync(fd) == 0
                           ? host::Error::Ok()
                           : Fail("write", temp.data());
  if (close(fd) != 0 && result.ok()) result = Fail("close", temp.data());
  if (result.ok() && rename(temp.data(), path.c_str()) != 0) {
    result = Fail("rename to", path);
  }
  if (!result.ok()) unlink(temp.data());
  return result;
}

}  // namespace edgeadmm::cli
