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
#include "edgeadmm/dataio/data_options.h"
#include "edgeadmm/dataio/dataset_source.h"

namespace edgeadmm::cli {
namespace {

void AddDataCommands(CLI::App& app) {
  CLI::App* data = app.add_subcommand("data", "Data set tools");
  data->require_subcommand(1);
  static DataOptions options;
  static DatasetSource source;
  static std::string output;
  CLI::App* encode = data->add_subcommand(
      "encode",
      "Write a data set as the devices load it (format, normalization) in "
      "LIBSVM text");
  encode->add_option("--input", source.path, "data file (.xz ok)")
      ->required();
  encode->add_option("--dim", source.dim, "LIBSVM dimension");
  AddDataOptions(encode, &options);
  encode->add_option("--output", output, "LIBSVM file to write")->required();
  encode->callback([] {
    ResolveDataOptions(options, "edgeadmm data encode", &source.format,
                       &source.normalization);
    auto loaded = LoadDataset(source);
    if (!loaded.ok()) {
      std::fprintf(stderr, "edgeadmm data encode: %s\n",
                   loaded.error().ToString().c_str());
      throw CLI::RuntimeError(1);
    }
    const std::string text = FormatLibsvm(*loaded);
    std::FILE* f = std::fopen(output.c_str(), "w");
    const bool written =
        f != nullptr && std::fwrite(text.data(), 1, text.size(), f) ==
                            text.size();
    if (f == nullptr || std::fclose(f) != 0 || !written) {
      std::fprintf(stderr, "edgeadmm data encode: cannot write %s\n",
                   output.c_str());
      throw CLI::RuntimeError(1);
    }
    std::printf("%zu records, %zu features\n", loaded->samples, loaded->dim);
  });
}

}  // namespace

EDGEADMM_CLI_COMMAND(AddDataCommands);

}  // namespace edgeadmm::cli
