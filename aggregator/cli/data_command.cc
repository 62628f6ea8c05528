// `edgeadmm data encode`: a data set as the devices and the validator see it
// (after --format and --normalize), written as LIBSVM text, so that tools
// outside C++ (the paper reproductions' evaluation in tests/repro/) use the
// product's one encoding instead of a copy of it.
//   edgeadmm data encode --input adult.data --format adult-csv
//       --normalize unit --output adult.libsvm
// Prints "<records> records, <dim> features" on stdout; a file that does not
// load prints the loader's error (file:line: what) and exits 1.
#include <cstdio>
#include <string>

#include "cli_command.h"
#include "edgeadmm/dataio/adult_onehot.h"
#include "edgeadmm/dataio/data_options.h"
#include "edgeadmm/dataio/dataset_source.h"

namespace edgeadmm::cli {
namespace {

// Writes `data` as LIBSVM text to `output`; on failure prints "<command>:
// cannot write <output>" and ends the command with exit code 1.
void WriteLibsvmFile(const DenseDataset& data, const std::string& output,
                     const char* command) {
  const std::string text = FormatLibsvm(data);
  std::FILE* f = std::fopen(output.c_str(), "w");
  const bool written = f != nullptr && std::fwrite(text.data(), 1, text.size(),
                                                   f) == text.size();
  if (f == nullptr || std::fclose(f) != 0 || !written) {
    std::fprintf(stderr, "%s: cannot write %s\n", command, output.c_str());
    host::ExitCommandLine(1);
  }
}

void AddDataCommands(host::Command& app) {
  host::Command data = app.AddSubcommand("data", "Data set tools");
  data.RequireSubcommand();
  static DataOptions options;
  static DatasetSource source;
  static std::string output;
  host::Command encode = data.AddSubcommand(
      "encode",
      "Write a data set as the devices load it (format, normalization) in "
      "LIBSVM text");
  encode.AddOption("--input", source.path, "data file (.xz ok)").Required();
  encode.AddOption("--dim", source.dim, "LIBSVM dimension");
  AddDataOptions(encode, &options);
  encode.AddOption("--output", output, "LIBSVM file to write").Required();
  encode.OnRun([] {
    ResolveDataOptions(options, "edgeadmm data encode", &source.format,
                       &source.normalization);
    auto loaded = LoadDataset(source);
    if (!loaded.ok()) {
      std::fprintf(stderr, "edgeadmm data encode: %s\n",
                   loaded.error().ToString().c_str());
      host::ExitCommandLine(1);
    }
    WriteLibsvmFile(*loaded, output, "edgeadmm data encode");
    std::printf("%zu records, %zu features\n", loaded->samples, loaded->dim);
  });

  // Paper 001's one-hot Adult (adult_onehot.h), for the paper-004 one-hot
  // setup (tests/repro/adult_dp_admm): both files, 45,222 x 105.
  static std::string onehot_data, onehot_test, onehot_output;
  host::Command onehot = data.AddSubcommand(
      "adult-onehot",
      "Write UCI Adult one-hot as paper 001 preprocesses it (records with a "
      "'?' dropped, columns scaled to max 1, rows to norm <= 1; adult.data's "
      "records first) in LIBSVM text");
  onehot.AddOption("--data", onehot_data, "adult.data (.xz ok)").Required();
  onehot.AddOption("--test", onehot_test, "adult.test (.xz ok)").Required();
  onehot.AddOption("--output", onehot_output, "LIBSVM file to write")
      .Required();
  onehot.OnRun([] {
    AdultOneHotStats stats;
    auto loaded = ReadAdultOneHot(onehot_data, onehot_test, &stats);
    if (!loaded.ok()) {
      std::fprintf(stderr, "edgeadmm data adult-onehot: %s\n",
                   loaded.error().ToString().c_str());
      host::ExitCommandLine(1);
    }
    WriteLibsvmFile(*loaded, onehot_output, "edgeadmm data adult-onehot");
    std::printf(
        "%zu records (%zu from --data, %zu dropped for '?'), %zu "
        "features\n",
        loaded->samples, stats.train_records, stats.dropped_missing,
        loaded->dim);
  });
}

}  // namespace

EDGEADMM_CLI_COMMAND(AddDataCommands);

}  // namespace edgeadmm::cli
