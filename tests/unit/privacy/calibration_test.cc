#include "edgeadmm/privacy/calibration.h"

#include <cmath>

#include "gtest/gtest.h"

namespace edgeadmm::privacy {
namespace {

TEST(CalibrationTest, FindsTheSmallestSufficientNoise) {
  struct Case {
    Schedule schedule;
    Target target;
  };
  Schedule gaussian;
  gaussian.rounds = 100;
  Schedule poisson;
  poisson.kind = MechanismKind::kPoissonSubsampledGaussian;
  poisson.sampling_rate = 0.01;
  poisson.rounds = 1000;
  Schedule fixed;
  fixed.kind = MechanismKind::kSampledWithoutReplacementGaussian;
  fixed.neighbouring = Neighbouring::kReplaceOne;
  fixed.sampling_rate = 0.05;
  fixed.rounds = 200;
  for (const Case& c : {Case{gaussian, {2.0, 1e-5, Conversion::kClassic}},
                        Case{poisson, {1.0, 1e-5, Conversion::kImproved}},
                        Case{fixed, {4.0, 1e-6, Conversion::kImproved}}}) {
    const auto calibration = CalibrateNoiseMultiplier(c.schedule, c.target);
    ASSERT_TRUE(calibration.ok()) << calibration.error().ToString();
    const double z = calibration->noise_multiplier;
    EXPECT_LE(calibration->achieved.epsilon, c.target.epsilon);
    const auto at_z = ScheduleEpsilon(c.schedule, z, c.target);
    EXPECT_LE(at_z->epsilon, c.target.epsilon);
    // Tight: 1e-5 less noise already exceeds the target.
    const auto below = ScheduleEpsilon(c.schedule, z * (1 - 1e-5), c.target);
    EXPECT_GT(below->epsilon, c.target.epsilon) << "z=" << z;
  }
}

TEST(CalibrationTest, GaussianMatchesTheClosedFormOptimum) {
  // eps(z) = min_a T a / (2 z^2) + log(1/delta)/(a-1); at the calibrated z
  // the minimum over the grid equals the target.
  Schedule gaussian;
  gaussian.rounds = 10;
  const Target target{1.0, 1e-5, Conversion::kClassic};
  const double z = CalibrateNoiseMultiplier(gaussian, target)->noise_multiplier;
  double eps = INFINITY;
  for (double a : OrderGrid::Default().orders()) {
    eps = std::min(eps, 10 * a / (2 * z * z) + std::log(1e5) / (a - 1));
  }
  EXPECT_NEAR(eps, 1.0, 1e-5);
}

TEST(CalibrationTest, RefusesBadTargetsAndUnreachableOnes) {
  Schedule gaussian;
  EXPECT_EQ(CalibrateNoiseMultiplier(gaussian, {0.0, 1e-5}).error().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(CalibrateNoiseMultiplier(gaussian, {1.0, 0.0}).error().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(CalibrateNoiseMultiplier(gaussian, {NAN, 1e-5}).error().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(CalibrateNoiseMultiplier(gaussian, {1e-9, 1e-5}).error().code(),
            StatusCode::kOutOfRange);
  Schedule no_rounds;
  no_rounds.rounds = 0;
  EXPECT_EQ(CalibrateNoiseMultiplier(no_rounds, {1.0, 1e-5}).error().code(),
            StatusCode::kInvalidArgument);
  Schedule bad_q;
  bad_q.kind = MechanismKind::kPoissonSubsampledGaussian;
  bad_q.sampling_rate = 0.0;
  EXPECT_EQ(CalibrateNoiseMultiplier(bad_q, {1.0, 1e-5}).error().code(),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace edgeadmm::privacy
