#include "edgeadmm/server/upload_spread.h"

#include "edgeadmm/wire/protocol.h"
#include "gtest/gtest.h"

namespace edgeadmm::server {
namespace {

// Fixed sampling of m devices, or Poisson at rate q when q > 0.
jobs::JobConfig Sampling(int64_t m, double q = 0) {
  jobs::JobConfig config;
  config.sampling =
      q > 0 ? jobs::SamplingScheme::kPoisson : jobs::SamplingScheme::kFixed;
  config.m = m;
  config.q = q;
  return config;
}

TEST(UploadSpreadTest, GrowsWithTheExpectedCohortNotWithTheJobsSize) {
  // a9a's 32,561 devices at 500 us: 16.3 s, whatever n is.
  EXPECT_EQ(UploadSpreadMs(Sampling(32'561), 40'000, 500, 600'000), 16'280u);
  EXPECT_EQ(UploadSpreadMs(Sampling(100), 32'561, 500, 600'000), 50u);
  // Poisson: q n rounded up (0.01 * 1,001 = 10.01 -> 11 devices).
  EXPECT_EQ(UploadSpreadMs(Sampling(0, 0.01), 1'001, 1'000, 600'000), 11u);
  EXPECT_EQ(UploadSpreadMs(Sampling(0, 0.5), 0, 1'000, 600'000), 0u);
}

TEST(UploadSpreadTest, NoneWithoutAPerDeviceShareOrTimeLeft) {
  EXPECT_EQ(UploadSpreadMs(Sampling(32'561), 32'561, 0, 600'000), 0u);
  EXPECT_EQ(UploadSpreadMs(Sampling(32'561), 32'561, 500, 0), 0u);
  EXPECT_EQ(UploadSpreadMs(Sampling(32'561), 32'561, 500, 3), 0u);
}

TEST(UploadSpreadTest, AtMostAQuarterOfTheDeadlineAndAMinute) {
  EXPECT_EQ(UploadSpreadMs(Sampling(32'561), 32'561, 500, 20'000), 5'000u);
  EXPECT_EQ(UploadSpreadMs(Sampling(32'561), 32'561, 1'000'000, UINT32_MAX),
            wire::kMaxUploadSpreadMs);
}

TEST(UploadSpreadTest, ASecureRoundsWindowIsAlsoAtMostOnePhase) {
  jobs::JobConfig config = Sampling(32'561);
  config.secure_aggregation.phase_seconds = 1200;
  EXPECT_EQ(SecurePhaseSpreadWindowMs(config, 3'600'000), 1'200'000u);
  EXPECT_EQ(SecurePhaseSpreadWindowMs(config, 600'000), 600'000u);
  // a9a's secure job: 16.3 s, a quarter of a 20-s phase below it: 5 s.
  EXPECT_EQ(UploadSpreadMs(config, 32'561, 500,
                           SecurePhaseSpreadWindowMs(config, 3'600'000)),
            16'280u);
  config.secure_aggregation.phase_seconds = 20;
  EXPECT_EQ(UploadSpreadMs(config, 32'561, 500,
                           SecurePhaseSpreadWindowMs(config, 3'600'000)),
            5'000u);
  config.secure_aggregation.phase_seconds = 0;
  EXPECT_EQ(SecurePhaseSpreadWindowMs(config, 3'600'000), 0u);
}

}  // namespace
}  // namespace edgeadmm::server
