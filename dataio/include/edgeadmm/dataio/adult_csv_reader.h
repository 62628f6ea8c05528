// UCI Adult CSV reader (adult.data, adult.test). Host only.
//
// Encoding (fixed, so train and test share one feature space):
// - the 6 continuous attributes (age, fnlwgt, education-num, capital-gain,
//   capital-loss, hours-per-week) are min-max scaled with FIXED bounds, the
//   range over adult.data ∪ adult.test: age [17, 90], fnlwgt
//   [12285, 1490400], education-num [1, 16], capital-gain [0, 99999],
//   capital-loss [0, 4356], hours-per-week [1, 99]; values outside are not
//   clamped;
// - the 8 categorical attributes are one-hot over the value lists of
//   adult.names (8 + 16 + 7 + 14 + 6 + 5 + 2 + 41 = 99 columns);
// - columns follow the attribute order: age, workclass(8), fnlwgt,
//   education(16), education-num, marital-status(7), occupation(14),
//   relationship(6), race(5), sex(2), capital-gain, capital-loss,
//   hours-per-week, native-country(41): kAdultFeatures = 105 in all;
// - label +1 for ">50K", -1 for "<=50K" (a trailing '.' as in adult.test is
//   stripped);
// - records with a missing value ('?') are dropped; blank lines and the
//   adult.test banner ("|1x3 Cross validator", any line starting with '|')
//   are skipped.
// Use NormalizeRows (row_normalization.h) for ||a|| ≤ 1 (paper 004).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "edgeadmm/dataio/dense_dataset.h"
#include "edgeadmm/host/error.h"

namespace edgeadmm {

inline constexpr size_t kAdultFeatures = 105;

struct AdultCsvStats {
  size_t records = 0;          // records read (kept + dropped)
  size_t dropped_missing = 0;  // records dropped for a '?'
};

// Parses Adult CSV text. INVALID_ARGUMENT for a record without 15 fields, an
// unparsable number, a category not in adult.names or an unknown label, with
// the message "<name>:<line>: <what is wrong>". *stats (if not null)
// receives the counts.
host::ErrorOr<DenseDataset> ParseAdultCsv(std::string_view text,
                                          const std::string& name,
                                          AdultCsvStats* stats = nullptr);

// Reads a plain or .xz Adult file (see ReadFileMaybeXz for its errors) and
// parses it as ParseAdultCsv does.
host::ErrorOr<DenseDataset> ReadAdultCsvFile(const std::string& path,
                                             AdultCsvStats* stats = nullptr);

}  // namespace edgeadmm
