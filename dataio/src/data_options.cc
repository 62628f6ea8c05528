#include "edgeadmm/dataio/data_options.h"

#include <cstdio>

namespace edgeadmm::cli {

void AddDataOptions(host::Command& cmd, DataOptions* options) {
  cmd.AddOption("--format", options->format,
                "libsvm, or adult-csv (UCI Adult adult.data/adult.test: "
                "105 one-hot/min-max features; 'csv' also accepted)")
      .CaptureDefault();
  cmd.AddOption("--normalize", options->normalize,
                "row scaling after loading: none, unit (every row to "
                "norm 1) or max (all rows by the largest norm)")
      .CaptureDefault();
}

void ResolveDataOptions(const DataOptions& options, const char* command,
                        DataFormat* format, RowNormalization* normalization) {
  if (!ParseDataFormat(options.format, format).ok()) {
    std::fprintf(stderr, "%s: --format must be libsvm or adult-csv, got %s\n",
                 command, options.format.c_str());
    host::ExitCommandLine(2);
  }
  if (!ParseRowNormalization(options.normalize, normalization).ok()) {
    std::fprintf(stderr,
                 "%s: --normalize must be none, unit or max, got "
                 "%s\n",
                 command, options.normalize.c_str());
    host::ExitCommandLine(2);
  }
}

}  // namespace edgeadmm::cli
