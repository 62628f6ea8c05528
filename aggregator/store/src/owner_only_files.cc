#include "edgeadmm/store/owner_only_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "edgeadmm/log.h"

namespace edgeadmm::store {
namespace {

Status Fail(const char* what, const std::string& path) {
  EDGEADMM_LOG_ERROR("store: cannot %s %s: %s", what, path.c_str(),
                     std::strerror(errno));
  return Status::Unavailable();
}

// Refuses the open file `fd` unless OwnedBy us, then clears its group and
// others' bits if any is set.
Status TightenFd(int fd, const std::string& path) {
  struct stat st {};
  if (fstat(fd, &st) != 0) return Fail("stat", path);
  if (!OwnedBy(st, geteuid())) {
    EDGEADMM_LOG_ERROR(
        "store: refusing %s: owned by uid %u (not uid %u) or not a regular "
        "file; its owner could read the keys",
        path.c_str(), static_cast<unsigned>(st.st_uid),
        static_cast<unsigned>(geteuid()));
    return Status::PermissionDenied();
  }
  if ((st.st_mode & 077) == 0) return Status::Ok();
  if (fchmod(fd, st.st_mode & 0700) != 0) return Fail("chmod", path);
  return Status::Ok();
}

}  // namespace

bool OwnedBy(const struct stat& st, uid_t euid) {
  return S_ISREG(st.st_mode) && st.st_uid == euid;
}

Status PrepareOwnerOnlyDatabase(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash != std::string::npos && slash > 0) {
    const std::string dir = path.substr(0, slash);
    if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
      return Fail("create", dir);
    }
  }
  for (const char* suffix : {"", "-wal", "-shm"}) {
    const std::string file = path + suffix;
    // Only the database itself is created here; SQLite makes the others.
    const int flags = O_RDWR | O_CLOEXEC | O_NOFOLLOW | (*suffix ? 0 : O_CREAT);
    const int fd = open(file.c_str(), flags, 0600);
    if (fd < 0) {
      if (errno == ENOENT && *suffix) continue;
      return Fail("open", file);
    }
    const Status tightened = TightenFd(fd, file);
    close(fd);
    if (!tightened.ok()) return tightened;
  }
  return Status::Ok();
}

}  // namespace edgeadmm::store
