// LIBSVM sparse format reader ("label idx:val idx:val ..."), producing a
// dense row-major data set of a dimension FIXED by the caller (a9a and a9a.t
// must both be read with dim 123: a9a.t never uses feature 123). Host only.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "edgeadmm/dataio/dense_dataset.h"
#include "edgeadmm/host/error.h"

namespace edgeadmm {

// What a label may be: ±1 (classification: logistic loss) or any finite
// real number (regression: squared loss, least squares / Lasso).
enum class LibsvmLabels { kBinary, kReal };

// Parses LIBSVM text. Labels must be +1 or -1 (written "+1", "1" or "-1"),
// or with kReal any finite decimal number ("0.25", "-3e2"); indices are
// 1-based, strictly increasing within a line and ≤ dim; values finite. Blank
// lines are skipped. INVALID_ARGUMENT for dim 0 or a malformed line, with
// the message "<name>:<line>: <what is wrong>".
host::ErrorOr<DenseDataset> ParseLibsvm(
    std::string_view text, size_t dim, const std::string& name,
    LibsvmLabels labels = LibsvmLabels::kBinary);

// Reads a plain or .xz LIBSVM file (see ReadFileMaybeXz for its errors) and
// parses it as ParseLibsvm does, naming the file in error messages.
host::ErrorOr<DenseDataset> ReadLibsvmFile(
    const std::string& path, size_t dim,
    LibsvmLabels labels = LibsvmLabels::kBinary);

}  // namespace edgeadmm
