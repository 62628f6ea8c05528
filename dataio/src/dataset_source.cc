#include "edgeadmm/dataio/dataset_source.h"

#include <cstdio>

#include "edgeadmm/dataio/adult_csv_reader.h"

namespace edgeadmm {

Status ParseDataFormat(std::string_view name, DataFormat* format) {
  if (name == "libsvm") {
    *format = DataFormat::kLibsvm;
  } else if (name == "adult-csv" || name == "csv") {
    *format = DataFormat::kAdultCsv;
  } else {
    return Status::InvalidArgument();
  }
  return Status::Ok();
}

Status ParseRowNormalization(std::string_view name, RowNormalization* mode) {
  if (name == "none") {
    *mode = RowNormalization::kNone;
  } else if (name == "unit") {
    *mode = RowNormalization::kUnitNorm;
  } else if (name == "max") {
    *mode = RowNormalization::kMaxNorm;
  } else {
    return Status::InvalidArgument();
  }
  return Status::Ok();
}

const char* DataFormatName(DataFormat format) {
  return format == DataFormat::kAdultCsv ? "adult-csv" : "libsvm";
}

const char* RowNormalizationName(RowNormalization mode) {
  switch (mode) {
    case RowNormalization::kUnitNorm:
      return "unit";
    case RowNormalization::kMaxNorm:
      return "max";
    case RowNormalization::kNone:
      break;
  }
  return "none";
}

host::ErrorOr<DenseDataset> LoadDataset(const DatasetSource& source) {
  if (source.format == DataFormat::kAdultCsv && source.dim != 0 &&
      source.dim != kAdultFeatures) {
    return host::Error::InvalidArgument(
        source.path + ": the Adult CSV encoding has " +
        std::to_string(kAdultFeatures) + " features, not " +
        std::to_string(source.dim));
  }
  EDGEADMM_HOST_TRY_ASSIGN(
      DenseDataset data,
      source.format == DataFormat::kAdultCsv
          ? ReadAdultCsvFile(source.path)
          : ReadLibsvmFile(source.path, source.dim, source.labels));
  NormalizeRows(data, source.normalization);
  return data;
}

std::string FormatLibsvm(const DenseDataset& data) {
  std::string out;
  char number[64];
  for (size_t i = 0; i < data.samples; ++i) {
    std::snprintf(number, sizeof(number), "%.17g",
                  static_cast<double>(data.labels[i]));
    out += number;
    for (size_t j = 0; j < data.dim; ++j) {
      const double v = static_cast<double>(data.features[i * data.dim + j]);
      if (v == 0) continue;
      std::snprintf(number, sizeof(number), " %zu:%.17g", j + 1, v);
      out += number;
    }
    out += '\n';
  }
  return out;
}

}  // namespace edgeadmm
