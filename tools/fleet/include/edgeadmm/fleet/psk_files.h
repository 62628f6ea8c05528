// The PSK directory of a fleet (`edgeadmm devices add --psk-dir DIR`): one
// file per device, named after its id, holding its hex PSK. Read by
// `edgeadmm-fleet connect` and `edgeadmm-fleet load`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "edgeadmm/host/error.h"
#include "edgeadmm/result.h"

namespace edgeadmm::fleet {

// The device ids: the files of `dir` not starting with '.', sorted.
// NOT_FOUND if `dir` cannot be read.
Result<std::vector<std::string>> ListPskIds(const std::string& dir);

// The devices one of `parts` processes runs, as indices into `ids` (the
// sorted order above, which gives device i its i-th data shard): i % parts
// == part, and the id begins with `prefix` ("" = every id).
std::vector<size_t> PartIndices(const std::vector<std::string>& ids,
                                size_t part, size_t parts,
                                const std::string& prefix);

// The PSK in the hex file `path`: NOT_FOUND if unreadable or empty,
// DATA_LOSS if not hex.
Result<std::vector<uint8_t>> ReadPskFile(const std::string& path);

// PERMISSION_DENIED, naming the file and its mode, if the PSK file of any
// of `ids` in `dir` is readable by group or others (docs/security.md);
// checked before anything is loaded.
host::Error RefuseSharedKeyFiles(const std::string& dir,
                                 const std::vector<std::string>& ids);

}  // namespace edgeadmm::fleet
