// UCI Adult one-hot, preprocessed as paper 001 (Chaudhuri, Monteleoni and
// Sarwate; digest-000-001-003.md part B5) does, for the one-hot setup of
// the paper-004 reproduction (docs/results.md). Host only.
//
// 1. adult.data and adult.test are read with ParseAdultCsv
//    (adult_csv_reader.h): records with a missing value ('?') are dropped
//    (30,162 + 15,060 = 45,222 records kept), the 8 categorical attributes
//    are one-hot, the 6 continuous ones min-max scaled with fixed bounds;
//    kAdultFeatures = 105 columns (workclass "Never-worked" never occurs in
//    a complete record: that column is all zero);
// 2. the two sets are concatenated, adult.data's records first;
// 3. each column is divided by its largest absolute value over the 45,222
//    records, so every non-zero column has max 1 (all-zero columns stay);
// 4. each row whose norm exceeds 1 is divided by its norm: ||a_j|| <= 1
//    (here every row, since each holds 8 one-hot ones before step 4).
// Labels: +1 for ">50K", -1 for "<=50K" (24.78% positive).
// Note: step 3's column maxima are computed over the data (as paper 001
// does); they are the public attribute ranges of adult.names for all but
// the continuous columns, whose fixed bounds already map into [0, 1].
#pragma once

#include <cstddef>
#include <string>

#include "edgeadmm/dataio/dense_dataset.h"
#include "edgeadmm/host/error.h"

namespace edgeadmm {

struct AdultOneHotStats {
  size_t records = 0;          // records read from both files
  size_t dropped_missing = 0;  // records dropped for a '?'
  size_t train_records = 0;    // kept records from the first file
};

// Steps 3 and 4 above, in place.
void ScaleColumnsToMaxOne(DenseDataset& data);
void ClipRowNorms(DenseDataset& data);

// Steps 1-4 on two Adult CSV files (plain or .xz); errors as
// ReadAdultCsvFile. *stats (if not null) receives the counts.
host::ErrorOr<DenseDataset> ReadAdultOneHot(const std::string& data_path,
                                            const std::string& test_path,
                                            AdultOneHotStats* stats = nullptr);

}  // namespace edgeadmm
