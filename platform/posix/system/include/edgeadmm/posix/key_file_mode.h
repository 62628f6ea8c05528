// The permission check of a device's PSK file (docs/security.md, "Keys at
// rest"): a key file must be readable by its owner only.
#pragma once

namespace edgeadmm::posix {

// True if `path` exists and has a group or others permission bit; its
// permission bits are then in `*mode` (if not null). False if it is private
// or cannot be examined (the caller's read reports that).
bool KeyFileIsShared(const char* path, unsigned* mode);

}  // namespace edgeadmm::posix
