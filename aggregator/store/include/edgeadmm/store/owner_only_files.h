// Owner-only files for the database: it holds the PSKs in clear, so its
// folder is created 0700 and the file, -wal and -shm are 0600 whoever
// creates them and whatever the umask (docs/security.md, "Keys at rest").
#pragma once

#include <sys/stat.h>

#include <string>

#include "edgeadmm/status.h"

namespace edgeadmm::store {

// Creates the database's parent folder (mode 0700) if it is missing,
// creates the file (0600) if it is missing, and takes group and others'
// bits off the file and any existing -wal/-shm (SQLite then creates those
// with the file's mode). UNAVAILABLE, logged, if one step fails;
// PERMISSION_DENIED, logged, if one of them is not a regular file owned by
// the effective user (another user who planted it could read it whatever
// its mode).
Status PrepareOwnerOnlyDatabase(const std::string& path);

// True if `st` is a regular file owned by `euid`.
bool OwnedBy(const struct stat& st, uid_t euid);

}  // namespace edgeadmm::store
