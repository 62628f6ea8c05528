#include "edgeadmm/dataio/dataset_source.h"

#include <cmath>
#include <string>

#include "data_files.h"
#include "edgeadmm/dataio/adult_csv_reader.h"
#include "gtest/gtest.h"

namespace edgeadmm {
namespace {

using dataio_testing::DataPath;
using dataio_testing::TempFile;

constexpr char kTwoAdultRecords[] =
    "39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, "
    "Not-in-family, White, Male, 2174, 0, 40, United-States, <=50K\n"
    "50, Private, 83311, HS-grad, 9, Divorced, Sales, Wife, Black, Female, "
    "0, 0, 13, Cuba, >50K\n";

TEST(DatasetSourceTest, ParsesTheNames) {
  DataFormat f = DataFormat::kLibsvm;
  EXPECT_TRUE(ParseDataFormat("adult-csv", &f).ok());
  EXPECT_EQ(f, DataFormat::kAdultCsv);
  EXPECT_TRUE(ParseDataFormat("libsvm", &f).ok());
  EXPECT_EQ(f, DataFormat::kLibsvm);
  EXPECT_TRUE(ParseDataFormat("csv", &f).ok());  // the older flag value
  EXPECT_EQ(f, DataFormat::kAdultCsv);
  EXPECT_FALSE(ParseDataFormat("arff", &f).ok());
  RowNormalization n = RowNormalization::kNone;
  for (RowNormalization m : {RowNormalization::kNone,
                             RowNormalization::kUnitNorm,
                             RowNormalization::kMaxNorm}) {
    ASSERT_TRUE(ParseRowNormalization(RowNormalizationName(m), &n).ok());
    EXPECT_EQ(n, m);
  }
  EXPECT_FALSE(ParseRowNormalization("l2", &n).ok());
  EXPECT_STREQ(DataFormatName(DataFormat::kAdultCsv), "adult-csv");
}

TEST(DatasetSourceTest, AdultWithUnitRowsAndLibsvmRoundTrip) {
  TempFile csv(kTwoAdultRecords);
  DatasetSource source;
  source.path = csv.path();
  source.format = DataFormat::kAdultCsv;
  source.normalization = RowNormalization::kUnitNorm;
  auto data = LoadDataset(source);
  ASSERT_TRUE(data.ok()) << data.error().ToString();
  ASSERT_EQ(data->samples, 2u);
  ASSERT_EQ(data->dim, kAdultFeatures);
  for (size_t i = 0; i < 2; ++i) {
    double norm = 0;
    for (size_t j = 0; j < data->dim; ++j) {
      norm += data->features[i * data->dim + j] *
              data->features[i * data->dim + j];
    }
    EXPECT_NEAR(std::sqrt(norm), 1.0, 1e-12);
  }
  // The LIBSVM text reads back to the same doubles.
  TempFile libsvm(FormatLibsvm(*data));
  auto back = ReadLibsvmFile(libsvm.path(), kAdultFeatures);
  ASSERT_TRUE(back.ok()) << back.error().ToString();
  EXPECT_EQ(back->labels, data->labels);
  EXPECT_EQ(back->features, data->features);
}

TEST(DatasetSourceTest, RefusesAWrongAdultDimensionAndMalformedRows) {
  TempFile csv(kTwoAdultRecords);
  DatasetSource source;
  source.path = csv.path();
  source.format = DataFormat::kAdultCsv;
  source.dim = 14;
  auto data = LoadDataset(source);
  EXPECT_EQ(data.status(), Status::InvalidArgument());
  EXPECT_NE(data.error().message().find("105"), std::string::npos)
      << data.error().message();
  TempFile bad("39, State-gov, 77516, Bachelors\n");
  source.path = bad.path();
  source.dim = 0;
  data = LoadDataset(source);
  EXPECT_EQ(data.status(), Status::InvalidArgument());
  EXPECT_NE(data.error().message().find(":1:"), std::string::npos)
      << data.error().message();
}

TEST(DatasetSourceTest, LoadsTheSharedAdultData) {
  DatasetSource source;
  source.path = DataPath("adult.data.xz");
  source.format = DataFormat::kAdultCsv;
  source.normalization = RowNormalization::kUnitNorm;
  auto data = LoadDataset(source);
  if (!data.ok() && data.status() == Status::NotFound()) {
    GTEST_SKIP() << "no adult.data.xz in $EDGEADMM_DATA";
  }
  ASSERT_TRUE(data.ok()) << data.error().ToString();
  EXPECT_EQ(data->samples, 30162u);  // '?' records dropped
}

}  // namespace
}  // namespace edgeadmm
