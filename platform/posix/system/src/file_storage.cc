#include "edgeadmm/posix/file_storage.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace edgeadmm {
namespace {

constexpr char kTempSuffix[] = ".tmp";

bool EndsWithTempSuffix(const char* key) {
  const size_t length = std::strlen(key);
  const size_t suffix = sizeof(kTempSuffix) - 1;
  return length >= suffix &&
         std::strcmp(key + length - suffix, kTempSuffix) == 0;
}

bool IsValidFileKey(const char* key) {
  return IsValidStorageKey(key) && !EndsWithTempSuffix(key);
}

Status WriteError() {
  return (errno == ENOSPC || errno == EDQUOT) ? Status::ResourceExhausted()
                                              : Status::Unavailable();
}

// Writes all of `data` to `fd`, retrying on EINTR and short writes.
bool WriteAll(int fd, ConstByteSpan data) {
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

FileStorage::~FileStorage() {
  if (directory_fd_ >= 0) close(directory_fd_);
}

Status FileStorage::Open(const char* directory) {
  const int fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return Status::NotFound();
    if (errno == ENOTDIR) return Status::InvalidArgument();
    return Status::Unavailable();
  }
  if (directory_fd_ >= 0) close(directory_fd_);
  directory_fd_ = fd;
  return Status::Ok();
}

Status FileStorage::Write(const char* key, ConstByteSpan data) {
  if (directory_fd_ < 0) return Status::FailedPrecondition();
  if (!IsValidFileKey(key)) return Status::InvalidArgument();
  char temp[kMaxKeyLength + sizeof(kTempSuffix)];
  std::snprintf(temp, sizeof(temp), "%s%s", key, kTempSuffix);

  const int fd = openat(directory_fd_, temp,
                        O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return WriteError();
  if (!WriteAll(fd, data) || fsync(fd) != 0) {
    const Status status = WriteError();
    close(fd);
    unlinkat(directory_fd_, temp, 0);
    return status;
  }
  if (close(fd) != 0) {
    const Status status = WriteError();
    unlinkat(directory_fd_, temp, 0);
    return status;
  }
  // The commit point: rename is atomic; the directory fsync makes it durable.
  if (renameat(directory_fd_, temp, directory_fd_, key) != 0) {
    const Status status = WriteError();
    unlinkat(directory_fd_, temp, 0);
    return status;
  }
  if (fsync(directory_fd_) != 0) return Status::Unavailable();
  return Status::Ok();
}

StatusWithSize FileStorage::Read(const char* key, ByteSpan out) {
  if (directory_fd_ < 0) {
    return StatusWithSize(Status::FailedPrecondition(), 0);
  }
  if (!IsValidFileKey(key)) {
    return StatusWithSize(Status::InvalidArgument(), 0);
  }
  const int fd = openat(directory_fd_, key, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return StatusWithSize(
        errno == ENOENT ? Status::NotFound() : Status::Unavailable(), 0);
  }
  struct stat info;
  if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    close(fd);
    return StatusWithSize(Status::Unavailable(), 0);
  }
  const size_t size = static_cast<size_t>(info.st_size);
  if (size > out.size()) {
    close(fd);
    return StatusWithSize(Status::ResourceExhausted(), size);
  }
  size_t done = 0;
  while (done < size) {
    const ssize_t n = read(fd, out.data() + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {  // error, or the file shrank (it never does: atomic writes)
      close(fd);
      return StatusWithSize(Status::Unavailable(), 0);
    }
    done += static_cast<size_t>(n);
  }
  close(fd);
  return StatusWithSize(size);
}

}  // namespace edgeadmm
