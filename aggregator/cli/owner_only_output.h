// Files the CLI writes for the operator (`job export -o`): created 0600 and
// never through a symlink someone planted at the path.
#pragma once

#include <string>

#include "edgeadmm/host/error.h"

namespace edgeadmm::cli {

// Writes `bytes` to a new temporary file (mode 0600, O_EXCL) in `path`'s
// folder, syncs it and renames it over `path`: a symlink at `path` is
// replaced, not followed, and readers never see a partial file.
// UNAVAILABLE naming the step and the path on failure (nothing left behind).
host::Error WriteOwnerOnlyFile(const std::string& path,
                               const std::string& bytes);

}  // namespace edgeadmm::cli
