// The data-set flags shared by every command that loads one
// (`edgeadmm-fleet run|connect`, `edgeadmm data encode`): --format and
// --normalize,
// parsed with dataio's names (dataset_source.h) so devices, the validator
// and the encoder agree.
#pragma once

#include <string>

#include "edgeadmm/dataio/dataset_source.h"
#include "edgeadmm/host/command_line.h"

namespace edgeadmm::cli {

struct DataOptions {
  std::string format = "libsvm";
  std::string normalize = "none";
};

// Adds --format (libsvm | adult-csv) and --normalize (none | unit | max).
void AddDataOptions(host::Command& cmd, DataOptions* options);

// Resolves the names; on a bad one prints "<command>: --format must be
// libsvm or adult-csv, got X" (or --normalize; `command` is the program and
// subcommand, e.g. "edgeadmm data encode") and ends the command with exit
// code 2 (host::ExitCommandLine).
void ResolveDataOptions(const DataOptions& options, const char* command,
                        DataFormat* format, RowNormalization* normalization);

}  // namespace edgeadmm::cli
