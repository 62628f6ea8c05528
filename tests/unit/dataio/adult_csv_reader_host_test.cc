#include <string>

#include "data_files.h"
#include "edgeadmm/dataio/adult_csv_reader.h"
#include "gtest/gtest.h"

namespace edgeadmm {
namespace {

using dataio_testing::DataPath;

// The first record of adult.data and the same record in test format.
constexpr char kRecord[] =
    "39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, "
    "Not-in-family, White, Male, 2174, 0, 40, United-States, <=50K";

TEST(AdultCsvReaderTest, EncodesOneRecord) {
  auto data = ParseAdultCsv(kRecord, "t");
  ASSERT_TRUE(data.ok()) << data.error().ToString();
  ASSERT_EQ(data->samples, 1u);
  EXPECT_EQ(data->dim, kAdultFeatures);
  EXPECT_EQ(data->labels[0], -1.0);
  const std::vector<Real>& a = data->features;
  EXPECT_DOUBLE_EQ(a[0], (39.0 - 17) / (90 - 17));  // age
  EXPECT_EQ(a[1 + 5], 1.0);                         // State-gov
  EXPECT_DOUBLE_EQ(a[9], (77516.0 - 12285) / (1490400 - 12285));
  EXPECT_EQ(a[10 + 0], 1.0);                // Bachelors
  EXPECT_DOUBLE_EQ(a[26], 12.0 / 15);       // education-num
  EXPECT_EQ(a[27 + 2], 1.0);                // Never-married
  EXPECT_EQ(a[34 + 8], 1.0);                // Adm-clerical
  EXPECT_EQ(a[48 + 3], 1.0);                // Not-in-family
  EXPECT_EQ(a[54 + 0], 1.0);                // White
  EXPECT_EQ(a[59 + 1], 1.0);                // Male
  EXPECT_DOUBLE_EQ(a[61], 2174.0 / 99999);  // capital-gain
  EXPECT_EQ(a[62], 0.0);                    // capital-loss
  EXPECT_DOUBLE_EQ(a[63], 39.0 / 98);       // hours
  EXPECT_EQ(a[64 + 0], 1.0);                // United-States
  Real ones = 0;
  for (Real x : a) ones += (x == 1.0);
  EXPECT_EQ(ones, 8.0);  // exactly one hot per categorical attribute
}

TEST(AdultCsvReaderTest, TestFormatBannerDotsAndMissingValues) {
  const std::string text =
      "|1x3 Cross validator\n" + std::string(kRecord) +
      ".\n"
      "50, ?, 1, HS-grad, 9, Divorced, Sales, Wife, Black, Female, 0, 0, 1, "
      "Cuba, >50K.\n"
      "\n";
  AdultCsvStats stats;
  auto data = ParseAdultCsv(text, "t", &stats);
  ASSERT_TRUE(data.ok()) << data.error().ToString();
  EXPECT_EQ(data->samples, 1u);
  EXPECT_EQ(stats.records, 2u);
  EXPECT_EQ(stats.dropped_missing, 1u);
}

TEST(AdultCsvReaderTest, RefusesMalformedRecordsNamingTheLine) {
  struct Bad {
    std::string text;
    const char* message;
  };
  const std::string record(kRecord);
  const Bad cases[] = {
      {record + "\n39, State-gov\n", "t:2: expected 15 fields, found 2"},
      {record.substr(0, record.size() - 5) + "maybe\n", "t:1: label 'maybe'"},
      {"x" + record + "\n", "t:1: age: 'x39' is not a number"},
      {"39, Pirate, " + record.substr(14) + "\n",
       "t:1: workclass: unknown category 'Pirate'"},
      {record + ", extra\n", "t:1: expected 15 fields, found 16"},
  };
  for (const Bad& bad : cases) {
    const auto data = ParseAdultCsv(bad.text, "t");
    EXPECT_EQ(data.status(), Status::InvalidArgument()) << bad.text;
    const std::string error = data.error().message();
    EXPECT_EQ(error.rfind(bad.message, 0), 0u) << error;
  }
}

TEST(AdultCsvReaderTest, ReadsTheRealFilesWithTheDocumentedCounts) {
  AdultCsvStats stats;
  auto train = ReadAdultCsvFile(DataPath("adult.data.xz"), &stats);
  ASSERT_TRUE(train.ok()) << train.error().ToString();
  EXPECT_EQ(stats.records, 32561u);
  EXPECT_EQ(stats.dropped_missing, 2399u);
  EXPECT_EQ(train->samples, 30162u);
  size_t positives = 0;
  for (Real b : train->labels) positives += b > 0;
  EXPECT_EQ(positives, 7508u);
  auto test = ReadAdultCsvFile(DataPath("adult.test.xz"), &stats);
  ASSERT_TRUE(test.ok()) << test.error().ToString();
  EXPECT_EQ(stats.records, 16281u);
  EXPECT_EQ(test->samples, 15060u);
  positives = 0;
  for (Real b : test->labels) positives += b > 0;
  EXPECT_EQ(positives, 3700u);  // labels had a trailing '.'
  // Continuous columns stay in [0, 1] (the bounds are the range of both).
  for (const DenseDataset* d : {&*train, &*test}) {
    for (Real x : d->features) {
      EXPECT_GE(x, 0.0);
      EXPECT_LE(x, 1.0);
    }
  }
}

TEST(AdultCsvReaderTest, EmptyTextIsAnEmptyDataSet) {
  auto data = ParseAdultCsv("\n\n", "empty");
  ASSERT_TRUE(data.ok()) << data.error().ToString();
  EXPECT_EQ(data->samples, 0u);
  EXPECT_EQ(data->dim, kAdultFeatures);
}

}  // namespace
}  // namespace edgeadmm
