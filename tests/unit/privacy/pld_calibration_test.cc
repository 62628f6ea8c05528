// PLD noise calibration: tight (1e-4 relative), below the RDP calibration,
// and refuses bad input or a starting point that misses the target.
#include "edgeadmm/privacy/pld_calibration.h"

#include "edgeadmm/privacy/calibration.h"
#include "gtest/gtest.h"

namespace edgeadmm::privacy {
namespace {

double PldEpsilon(double q, uint64_t t, double nu) {
  PldAccountant accountant;
  EXPECT_TRUE(accountant.Compose(q, nu, t).ok());
  return accountant.Epsilon(1e-5).value();
}

TEST(PldCalibrationTest, MeetsTheTargetTightlyWithLessNoiseThanRdp) {
  Schedule schedule;
  schedule.kind = MechanismKind::kPoissonSubsampledGaussian;
  schedule.sampling_rate = 0.01;
  schedule.rounds = 500;
  const Target target{1.0, 1e-5, Conversion::kImproved};
  const auto rdp = CalibrateNoiseMultiplier(schedule, target);
  ASSERT_TRUE(rdp.ok());
  const auto pld = CalibratePldNoiseMultiplier(0.01, 500, 1.0, 1e-5,
                                               rdp.value().noise_multiplier);
  ASSERT_TRUE(pld.ok());
  EXPECT_LT(pld.value().noise_multiplier, rdp.value().noise_multiplier);
  EXPECT_LE(pld.value().epsilon, 1.0);
  EXPECT_DOUBLE_EQ(PldEpsilon(0.01, 500, pld.value().noise_multiplier),
                   pld.value().epsilon);
  EXPECT_GT(PldEpsilon(0.01, 500, pld.value().noise_multiplier * (1 - 2e-4)),
            1.0);
}

TEST(PldCalibrationTest, RefusesBadInput) {
  EXPECT_FALSE(CalibratePldNoiseMultiplier(0.0, 10, 1.0, 1e-5, 5.0).ok());
  EXPECT_FALSE(CalibratePldNoiseMultiplier(0.1, 0, 1.0, 1e-5, 5.0).ok());
  EXPECT_FALSE(CalibratePldNoiseMultiplier(0.1, 10, 0.0, 1e-5, 5.0).ok());
  EXPECT_FALSE(CalibratePldNoiseMultiplier(0.1, 10, 1.0, 1.0, 5.0).ok());
  EXPECT_FALSE(CalibratePldNoiseMultiplier(0.1, 10, 1.0, 1e-5, -1.0).ok());
  // A start that misses the target.
  const auto miss = CalibratePldNoiseMultiplier(0.1, 10, 1.0, 1e-5, 0.5);
  ASSERT_FALSE(miss.ok());
  EXPECT_EQ(miss.error().code(), StatusCode::kOutOfRange);
}

}  // namespace
}  // namespace edgeadmm::privacy
