// Reads a whole file, decompressing it if it is in the .xz format (detected
// by its magic bytes, not its name). Host only.
#pragma once

#include <string>

#include "edgeadmm/host/error.h"

namespace edgeadmm {

// The (decompressed) bytes of `path`. NOT_FOUND if the file cannot be
// opened, DATA_LOSS if reading or xz decoding fails, with a message naming
// the file.
host::ErrorOr<std::string> ReadFileMaybeXz(const std::string& path);

}  // namespace edgeadmm
