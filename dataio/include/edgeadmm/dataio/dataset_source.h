// One way to load a data set, shared by every host program that reads one:
// the devices of `edgeadmm-fleet connect` / `fleet run`, the aggregator's
// validator (`[validation]` of a job) and `edgeadmm data encode`. A format
// (LIBSVM or UCI Adult CSV), then an optional row normalization, so the
// devices and the validator see exactly the same feature space. Host only.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "edgeadmm/dataio/dense_dataset.h"
#include "edgeadmm/dataio/libsvm_reader.h"
#include "edgeadmm/dataio/row_normalization.h"
#include "edgeadmm/host/error.h"

namespace edgeadmm {

enum class DataFormat {
  kLibsvm,    // libsvm_reader.h; the dimension is the caller's
  kAdultCsv,  // adult_csv_reader.h; always kAdultFeatures (105) columns
};

struct DatasetSource {
  std::string path;  // plain or .xz
  DataFormat format = DataFormat::kLibsvm;
  size_t dim = 0;  // LIBSVM: required; Adult: 0 or kAdultFeatures
  LibsvmLabels labels = LibsvmLabels::kBinary;  // LIBSVM only
  RowNormalization normalization = RowNormalization::kNone;
};

// Names used by the CLI flags (`--format`, `--normalize`) and the job keys
// (`validation.format`, `validation.normalize`):
//   formats: "libsvm", "adult-csv" (also "csv", the older flag value);
//   normalizations: "none", "unit" (each row to norm 1), "max" (all rows
//   divided by the largest row norm of the file).
// INVALID_ARGUMENT for any other name.
Status ParseDataFormat(std::string_view name, DataFormat* format);
Status ParseRowNormalization(std::string_view name, RowNormalization* mode);
const char* DataFormatName(DataFormat format);
const char* RowNormalizationName(RowNormalization mode);

// Reads `source.path` in its format and normalizes the rows. Errors as
// ReadLibsvmFile / ReadAdultCsvFile (NOT_FOUND, DATA_LOSS, INVALID_ARGUMENT
// naming file and line), and INVALID_ARGUMENT for an Adult source whose
// `dim` is neither 0 nor 105; the message says what is wrong.
host::ErrorOr<DenseDataset> LoadDataset(const DatasetSource& source);

// LIBSVM text of `data` (1-based indices, zero features left out, values
// and labels with 17 significant digits, so ParseLibsvm reads back the same
// doubles). Lets tools outside C++ use exactly the product's encoding.
std::string FormatLibsvm(const DenseDataset& data);

}  // namespace edgeadmm
