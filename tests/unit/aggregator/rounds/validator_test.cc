#include "edgeadmm/rounds/validator.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

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
}

TEST(ValidatorTest, SquaredLoss) {
  const Validator v(jobs::Loss::kSquared, TwoPoints());
  const ValidationMetrics m = v.Evaluate({1.0, -0.5});
  EXPECT_DOUBLE_EQ(m.loss, 0.0);  // both predictions exact
  EXPECT_DOUBLE_EQ(m.accuracy, 1.0);
}

TEST(ValidatorTest, LoadsLibsvmAndNamesErrors) {
  testing::TempDatabase t;
  const std::string path = t.dir() + "/val.libsvm";
  std::ofstream(path) << "+1 1:1\n-1 2:2\n";
  jobs::JobConfig c;
  c.dimension = 2;
  c.validation_data = path;
  std::string error;
  auto v = Validator::Load(c, &error);
  ASSERT_TRUE(v.ok()) << error;
  EXPECT_EQ(v->samples(), 2u);
  std::ofstream(path) << "+1 7:1\n";  // index above the dimension
  EXPECT_FALSE(Validator::Load(c, &error).ok());
  EXPECT_NE(error.find("val.libsvm"), std::string::npos) << error;
  c.validation_data.clear();
  EXPECT_EQ(Validator::Load(c, &error).status(), Status::FailedPrecondition());
}

}  // namespace
}  // namespace edgeadmm::rounds
