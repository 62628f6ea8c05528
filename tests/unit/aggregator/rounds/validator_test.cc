#include "edgeadmm/rounds/validator.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "edgeadmm/rounds/round_summary.h"
#include "test_database.h"

namespace edgeadmm::rounds {
namespace {

DenseDataset TwoPoints() {
  DenseDataset d;
  d.dim = 2;
  d.samples = 2;
  d.features = {1.0, 0.0, 0.0, 2.0};
  d.labels = {1.0, -1.0};
  return d;
}

TEST(ValidatorTest, LogisticLossAndAccuracy) {
  const Validator v(jobs::Loss::kLogistic, TwoPoints());
  // Margins: aᵀz = 2 (label +1: correct), 2·0.5 = 1 (label −1: wrong).
  const ValidationMetrics m = v.Evaluate({2.0, 0.5});
  EXPECT_NEAR(m.loss,
              (std::log1p(std::exp(-2.0)) + std::log1p(std::exp(1.0))) / 2,
              1e-12);
  EXPECT_DOUBLE_EQ(m.accuracy, 0.5);
  EXPECT_DOUBLE_EQ(m.majority, 0.5);
}

// A model below the majority class is flagged in the round's log line
// (issue 35: a "best" model at 65.3% beside a 76.4% majority went
// unremarked).
TEST(ValidatorTest, AccuracyBelowTheMajorityClassIsFlagged) {
  DenseDataset d;
  d.dim = 1;
  d.samples = 4;
  d.features = {1.0, 1.0, 1.0, 1.0};
  d.labels = {-1.0, -1.0, -1.0, 1.0};
  const Validator v(jobs::Loss::kLogistic, d);
  RoundSummary summary;
  summary.validated = true;
  summary.metrics = v.Evaluate({1.0});  // predicts +1: 1 of 4 right
  EXPECT_DOUBLE_EQ(summary.metrics.majority, 0.75);
  EXPECT_NE(ValidationSuffix(summary).find("below the majority class, 0.7500"),
            std::string::npos)
      << ValidationSuffix(summary);
  summary.metrics = v.Evaluate({-1.0});  // predicts −1: 3 of 4 right
  EXPECT_EQ(ValidationSuffix(summary).find("majority"), std::string::npos);
}

TEST(ValidatorTest, SquaredLoss) {
  const Validator v(jobs::Loss::kSquared, TwoPoints());
  const ValidationMetrics m = v.Evaluate({1.0, -0.5});
  EXPECT_DOUBLE_EQ(m.loss, 0.0);  // both predictions exact
  EXPECT_DOUBLE_EQ(m.objective, 0.0);  // no regularizer
  EXPECT_FALSE(m.has_accuracy);  // real labels: sign accuracy means nothing
}

TEST(ValidatorTest, LassoObjectiveOnRealLabels) {
  DenseDataset d = TwoPoints();
  d.labels = {0.25, -1.5};  // real-valued regression targets
  Regularizer l1;
  l1.kind = RegularizerKind::kL1;
  l1.l1 = 0.1;
  const Validator v(jobs::Loss::kSquared, d, l1);
  // Predictions aᵀz = 0.5 and 2·(−0.5) = −1: residuals 0.25 and 0.5.
  const ValidationMetrics m = v.Evaluate({0.5, -0.5});
  const double loss = (0.5 * 0.25 * 0.25 + 0.5 * 0.5 * 0.5) / 2;
  EXPECT_NEAR(m.loss, loss, 1e-15);
  // (1/(2n))||Az − b||² + κ||z||₁ with κ = 0.1, ||z||₁ = 1.
  EXPECT_NEAR(m.objective, loss + 0.1, 1e-15);
  EXPECT_FALSE(m.has_accuracy);
}

TEST(ValidatorTest, LogisticObjectiveAddsTheRegularizer) {
  Regularizer l2;
  l2.kind = RegularizerKind::kL2;
  l2.l2 = 0.5;
  const Validator v(jobs::Loss::kLogistic, TwoPoints(), l2);
  const ValidationMetrics m = v.Evaluate({2.0, 0.5});
  // r(z) = (l2/2)||z||² = 0.25·4.25.
  EXPECT_NEAR(m.objective, m.loss + 0.25 * 4.25, 1e-12);
  EXPECT_TRUE(m.has_accuracy);
  EXPECT_DOUBLE_EQ(m.accuracy, 0.5);
}

// A two-feature job whose validation file `name` in `t` holds `text`.
jobs::JobConfig JobWithValidationFile(const testing::TempDatabase& t,
                                      const char* name, const char* text) {
  jobs::JobConfig c;
  c.dimension = 2;
  c.validation_data = t.dir() + "/" + name;
  std::ofstream(c.validation_data) << text;
  return c;
}

TEST(ValidatorTest, LoadUsesTheJobsLossAndRegularizer) {
  testing::TempDatabase t;
  jobs::JobConfig c =
      JobWithValidationFile(t, "lasso.libsvm", "0.25 1:1\n-1.5 2:2\n");
  c.loss = jobs::Loss::kSquared;
  c.regularizer.kind = RegularizerKind::kL1;
  c.regularizer.l1 = 0.1;
  auto v = Validator::Load(c);
  ASSERT_TRUE(v.ok()) << v.error().ToString();
  const ValidationMetrics m = v->Evaluate({0.5, -0.5});
  EXPECT_NEAR(m.objective, (0.5 * 0.25 * 0.25 + 0.5 * 0.5 * 0.5) / 2 + 0.1,
              1e-15);
}

TEST(ValidatorTest, LoadsLibsvmAndNamesErrors) {
  testing::TempDatabase t;
  jobs::JobConfig c =
      JobWithValidationFile(t, "val.libsvm", "+1 1:1\n-1 2:2\n");
  const std::string path = c.validation_data;
  auto v = Validator::Load(c);
  ASSERT_TRUE(v.ok()) << v.error().ToString();
  EXPECT_EQ(v->samples(), 2u);
  std::ofstream(path) << "+1 7:1\n";  // index above the dimension
  const std::string error = Validator::Load(c).error().message();
  EXPECT_NE(error.find("val.libsvm"), std::string::npos) << error;
  c.validation_data.clear();
  EXPECT_EQ(Validator::Load(c).status(), Status::FailedPrecondition());
}

TEST(ValidatorTest, LoadsAdultCsvWithTheJobsNormalization) {
  testing::TempDatabase t;
  const std::string path = t.dir() + "/adult.test";
  std::ofstream(path)
      << "|1x3 Cross validator\n"
         "39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, "
         "Not-in-family, White, Male, 2174, 0, 40, United-States, <=50K.\n"
         "50, Private, 83311, HS-grad, 9, Divorced, Sales, Wife, Black, "
         "Female, 0, 0, 13, Cuba, >50K.\n";
  jobs::JobConfig c;
  c.dimension = 105;
  c.validation_data = path;
  c.validation_format = DataFormat::kAdultCsv;
  c.validation_normalize = RowNormalization::kUnitNorm;
  auto v = Validator::Load(c);
  ASSERT_TRUE(v.ok()) << v.error().ToString();
  EXPECT_EQ(v->samples(), 2u);
  // With unit rows, z = a_1 (the first record's encoding) has margin 1 on
  // the first record: its loss is log(1 + e^{-(-1)(1)}) for label -1.
  std::vector<double> z(105, 0.0);
  z[59 + 1] = 1.0;  // Male: only record 1, label -1 → margin > 0, wrong
  const ValidationMetrics m = v->Evaluate(z);
  EXPECT_DOUBLE_EQ(m.accuracy, 0.0);  // margin 0 on record 2 predicts -1
  // A malformed record is refused with file and line.
  std::ofstream(path) << "39, State-gov, 77516\n";
  const std::string error = Validator::Load(c).error().message();
  EXPECT_NE(error.find("adult.test:1"), std::string::npos) << error;
}

}  // namespace
}  // namespace edgeadmm::rounds
