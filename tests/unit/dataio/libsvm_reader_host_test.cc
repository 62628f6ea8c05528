#include <string>

#include "data_files.h"
#include "edgeadmm/dataio/libsvm_reader.h"
#include "gtest/gtest.h"

namespace edgeadmm {
namespace {

using dataio_testing::DataPath;

TEST(LibsvmReaderTest, ParsesDenseRowsWithFixedDimension) {
  auto data = ParseLibsvm("+1 1:1 4:0.5 \n\n-1 2:-2\r\n1 5:3e-1\n", 6, "t");
  ASSERT_TRUE(data.ok()) << data.error().ToString();
  EXPECT_EQ(data->samples, 3u);
  EXPECT_EQ(data->dim, 6u);
  ASSERT_EQ(data->features.size(), 18u);
  const double expected[18] = {1, 0,  0, 0.5, 0,   0,  //
                               0, -2, 0, 0,   0,   0,  //
                               0, 0,  0, 0,   0.3, 0};
  for (size_t i = 0; i < 18; ++i)
    EXPECT_DOUBLE_EQ(data->features[i], expected[i]);
  EXPECT_EQ(data->labels, (std::vector<Real>{1, -1, 1}));
}

TEST(LibsvmReaderTest, RefusesMalformedLinesNamingTheLine) {
  struct Bad {
    const char* text;
    const char* message;
  };
  const Bad cases[] = {
      {"+1 1:1\n0 2:1\n", "t:2: label '0'"},
      {"+1 1:1\n-1 2:1\nx 1:1\n", "t:3: label 'x'"},
      {"+1 0:1\n", "t:1: index 0 outside 1..4"},
      {"+1 5:1\n", "t:1: index 5 outside 1..4"},
      {"+1 3:1 2:1\n", "t:1: index 2 not increasing"},
      {"+1 3:1 3:1\n", "t:1: index 3 not increasing"},
      {"+1 3\n", "t:1: malformed pair '3'"},
      {"+1 3:\n", "t:1: malformed pair '3:'"},
      {"+1 a:1\n", "t:1: malformed pair 'a:1'"},
      {"+1 2:1x\n", "t:1: malformed pair '2:1x'"},
      {"+1 2:nan\n", "t:1: malformed pair '2:nan'"},
  };
  for (const Bad& bad : cases) {
    auto data = ParseLibsvm(bad.text, 4, "t");
    EXPECT_EQ(data.status(), Status::InvalidArgument()) << bad.text;
    const std::string error = data.error().message();
    EXPECT_EQ(error.rfind(bad.message, 0), 0u) << error;
  }
  EXPECT_EQ(ParseLibsvm("+1 1:1\n", 0, "t").status(),
            Status::InvalidArgument());
}

TEST(LibsvmReaderTest, RealLabelsOnlyWhenAsked) {
  const char text[] = "0.25 1:1\n-3e2 2:0.5\n+7 3:1\n1 4:2\n";
  auto binary = ParseLibsvm(text, 4, "t");
  EXPECT_EQ(binary.status(), Status::InvalidArgument());
  EXPECT_EQ(binary.error().message(),
            "t:1: label '0.25' is not +1 or -1 (real labels need a "
            "squared-loss job)");
  auto real = ParseLibsvm(text, 4, "t", LibsvmLabels::kReal);
  ASSERT_TRUE(real.ok()) << real.error().ToString();
  EXPECT_EQ(real->labels, (std::vector<Real>{0.25, -300, 7, 1}));
  EXPECT_EQ(real->features[1 * 4 + 1], 0.5);
  // Still refused with real labels: not a number, not finite, bad pairs.
  const char* const bad[][2] = {
      {"1 1:1\nx 2:1\n", "t:2: label 'x' is not a finite number"},
      {"nan 1:1\n", "t:1: label 'nan' is not a finite number"},
      {"inf 1:1\n", "t:1: label 'inf' is not a finite number"},
      {"1e999 1:1\n", "t:1: label '1e999' is not a finite number"},
      {"0.5 0:1\n", "t:1: index 0 outside 1..4"},
      {"0.5 2:1 1:1\n", "t:1: index 1 not increasing"},
  };
  for (const auto& b : bad) {
    const auto parsed = ParseLibsvm(b[0], 4, "t", LibsvmLabels::kReal);
    EXPECT_EQ(parsed.status(), Status::InvalidArgument()) << b[0];
    EXPECT_EQ(parsed.error().message(), b[1]);
  }
}

TEST(LibsvmReaderTest, ReadsA9aTrainAndTestWithDimension123) {
  auto train = ReadLibsvmFile(DataPath("a9a.xz"), 123);
  ASSERT_TRUE(train.ok()) << train.error().ToString();
  EXPECT_EQ(train->samples, 32561u);
  size_t positives = 0;
  size_t nonzeros = 0;
  for (Real b : train->labels) positives += b > 0;
  for (Real a : train->features) nonzeros += a != 0;
  EXPECT_EQ(positives, 7841u);
  EXPECT_EQ(nonzeros, 451592u);
  auto test = ReadLibsvmFile(DataPath("a9a.t.xz"), 123);
  ASSERT_TRUE(test.ok()) << test.error().ToString();
  EXPECT_EQ(test->samples, 16281u);
  EXPECT_EQ(test->dim, 123u);
  positives = 0;
  Real column_123 = 0;
  for (Real b : test->labels) positives += b > 0;
  for (size_t j = 0; j < test->samples; ++j) {
    column_123 += test->features[j * 123 + 122];
  }
  EXPECT_EQ(positives, 3846u);
  EXPECT_EQ(column_123, 0.0);  // feature 123 never occurs in a9a.t
  // A view of a shard maps the loaded rows.
  auto shard = train->Shard(32561 - 325, 325);
  ASSERT_TRUE(shard.ok());
  EXPECT_EQ(shard->features().data(),
            train->features.data() + (32561 - 325) * 123);
  EXPECT_NEAR(shard->MaxRowNorm(), std::sqrt(14.0), 1e-12);
  EXPECT_EQ(train->Shard(32561, 1).status(), Status::OutOfRange());
}

// admm-sharing's vertical partition: a party's column block of the first N
// records, copied with their labels.
TEST(LibsvmReaderTest, ColumnBlockCutsAPartysColumns) {
  auto data = ParseLibsvm("+1 1:1 3:2 4:3\n-1 2:4 4:5\n+1 1:6\n", 4, "x");
  ASSERT_TRUE(data.ok());
  auto block = ColumnBlock(*data, 2, 2, 2);
  ASSERT_TRUE(block.ok());
  EXPECT_EQ(block->samples, 2u);
  EXPECT_EQ(block->dim, 2u);
  EXPECT_EQ(block->features, (std::vector<Real>{2, 3, 0, 5}));
  EXPECT_EQ(block->labels, (std::vector<Real>{1, -1}));
  EXPECT_EQ(ColumnBlock(*data, 3, 2, 2).status(), Status::OutOfRange());
  EXPECT_EQ(ColumnBlock(*data, 0, 4, 4).status(), Status::OutOfRange());
  EXPECT_EQ(ColumnBlock(*data, 0, 0, 1).status(), Status::InvalidArgument());
}

TEST(LibsvmReaderTest, MissingFileNamesThePath) {
  const auto missing = ReadLibsvmFile(DataPath("no-such-file"), 123);
  EXPECT_EQ(missing.status(), Status::NotFound());
  EXPECT_NE(missing.error().message().find("no-such-file"), std::string::npos);
}

}  // namespace
}  // namespace edgeadmm
