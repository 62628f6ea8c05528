// Reads a whole file, decompressing it if it is in the .xz format (detected
// by its magic bytes, not its name). Host only.
#pragma once

#include <string>

#include "edgeadmm/status.h"

namespace edgeadmm {

// Stores the (decompressed) bytes of `path` in *contents. NOT_FOUND if the
// file cannot be opened, DATA_LOSS if reading or xz decoding fails. On error
// *error (if not null) receives a message naming the file.
Status ReadFileMaybeXz(const std::string& path, std::string* contents,
                       std::string* error);

}  // namespace edgeadmm
