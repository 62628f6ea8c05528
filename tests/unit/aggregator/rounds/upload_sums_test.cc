// The cap on a device's influence across rounds (UploadSums, the judge's
// kSumAboveBound; docs/security.md "Influence across rounds"), performed on
// the round engine: a device that steers in one direction is refused once
// its sum leaves what honest uploads reach; an honest device is not.
#include "edgeadmm/rounds/upload_sums.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "edgeadmm/algorithms/registry.h"
#include "edgeadmm/jobs/job_store.h"
#include "edgeadmm/rounds/round_engine.h"
#include "edgeadmm/store/blob.h"
#include "test_database.h"

namespace edgeadmm::rounds {
namespace {

TEST(UploadBoundTest, SumNormGrowsLinearlyInSignalAndAsRootKInNoise) {
  const host::UploadBound bound{2.0, 0.5};
  // k·2 + √k·0.5·(√p + 10), p = 16.
  EXPECT_DOUBLE_EQ(bound.Norm(1, 16), 2.0 + 0.5 * 14);
  EXPECT_DOUBLE_EQ(bound.Norm(4, 16), 8.0 + 2 * 0.5 * 14);
  EXPECT_FALSE(host::UploadBound{}.bounded());
}

TEST(UploadSumsTest, KeepsSumWithinBoundComparesTheNewSum) {
  const host::UploadBound bound{1.0, 0.0};  // Norm(k) = k
  UploadSum before{2, {1.5, 0.0}};
  EXPECT_TRUE(KeepsSumWithinBound(bound, before, {1.5, 0.0}));   // 3 <= 3
  EXPECT_FALSE(KeepsSumWithinBound(bound, before, {1.6, 0.0}));  // 3.1 > 3
  // Opposite steps take the sum back: allowed.
  EXPECT_TRUE(KeepsSumWithinBound(bound, before, {-1.0, 0.0}));
  // A sum of another length is damaged, never within.
  EXPECT_FALSE(KeepsSumWithinBound(bound, before, {0.0, 0.0, 0.0}));
  EXPECT_TRUE(KeepsSumWithinBound(host::UploadBound{}, before,
                                  {1e30, 0.0}));
}

class InfluenceCapTest : public ::testing::Test {
 protected:
  // One device, sampled every round: prox-admm with 2λC = 1 and λσ = 1
  // under participation (p = 3).
  void StartParticipation() {
    testing::EnrollDevices(t_.db(), 1);
    job_id_ = testing::StartOneDeviceJob(t_.db(), "steer");
    Reopen();
  }
  // Under trusted-aggregator the devices add no noise: Norm(k) = k.
  void StartTrustedAggregator() {
    testing::EnrollDevices(t_.db(), 1);
    job_id_ = testing::StartEveryoneJob(
        t_.db(), "steer",
        testing::PrivacyTableWithPolicy("trusted-aggregator"));
    Reopen();
  }
  void Reopen() {
    engine_.reset();
    auto engine = RoundEngine::Open(t_.db(), job_id_, accountant_);
    ASSERT_TRUE(engine.ok());
    engine_ = std::move(engine).value();
    ASSERT_TRUE(engine_->Advance(now_).ok());
    ASSERT_TRUE(engine_->round_open());
  }
  host::UploadBound Bound() const {
    const jobs::JobConfig& c = engine_->job().config;
    return algorithms::Get(c.algorithm).HonestUpload(c);
  }
  // Submits `length`·e1 from `device` to the open round.
  UploadVerdict SubmitAlongE1(double length,
                              const std::string& device = "dev-000") {
    Upload u;
    u.device_id = device;
    u.job_id = engine_->job().id;
    u.round_id = engine_->round_id();
    u.vector = store::EncodeFloats({length, 0, 0});
    return engine_->Submit(device, u, now_);
  }
  // Closes the round at its deadline and opens the next.
  void Next() {
    now_ += 61'000;  // past either job's deadline
    ASSERT_TRUE(engine_->Advance(now_).ok());
    ASSERT_TRUE(engine_->round_open());
  }

  testing::TempDatabase t_;
  PrivacyRoundAccountant accountant_;
  int64_t job_id_ = 0;
  int64_t now_ = 1000;
  std::unique_ptr<RoundEngine> engine_;
};

// The review's attack: 0.9999 × the one-upload bound in one direction every
// round. The second such upload takes the sum above Norm(2) and is refused;
// the most the device can still add that round is Norm(2) − Norm(1).
TEST_F(InfluenceCapTest, SteeringDeviceIsRefusedFromItsSecondRound) {
  StartParticipation();
  const host::UploadBound bound = Bound();
  ASSERT_DOUBLE_EQ(bound.signal, 1.0);
  ASSERT_DOUBLE_EQ(bound.noise_stddev, 1.0);
  const double one = bound.Norm(1, 3);
  const double two = bound.Norm(2, 3);
  EXPECT_EQ(SubmitAlongE1(0.9999 * one), UploadVerdict::kAccepted);
  Next();
  EXPECT_EQ(SubmitAlongE1(0.9999 * one), UploadVerdict::kSumAboveBound);
  EXPECT_EQ(SubmitAlongE1(1.001 * (two - 0.9999 * one)),
            UploadVerdict::kSumAboveBound);
  EXPECT_EQ(SubmitAlongE1(0.999 * (two - 0.9999 * one)),
            UploadVerdict::kAccepted);
  Next();
  // The sum survives a restart: it is in the store, not only in memory.
  Reopen();
  const double three = bound.Norm(3, 3);
  const double sum = 0.9999 * one + 0.999 * (two - 0.9999 * one);
  EXPECT_EQ(SubmitAlongE1(1.001 * (three - sum)),
            UploadVerdict::kSumAboveBound);
  EXPECT_EQ(SubmitAlongE1(0.999 * (three - sum)), UploadVerdict::kAccepted);
}

// Honest uploads whose clipped signals all point the same way (the largest
// sum an honest device can have without noise) are never refused: the cap
// grows by the whole signal bound per round.
TEST_F(InfluenceCapTest, AlignedHonestSignalsAreAcceptedEveryRound) {
  StartTrustedAggregator();
  ASSERT_DOUBLE_EQ(Bound().signal, 1.0);
  ASSERT_DOUBLE_EQ(Bound().noise_stddev, 0.0);
  for (int round = 0; round < 4; ++round) {
    EXPECT_EQ(SubmitAlongE1(1.0), UploadVerdict::kAccepted) << round;
    Next();
  }
  EXPECT_EQ(testing::QueryInt(t_.db(), "SELECT uploads FROM upload_sums"), 4);
}

// A round that does not commit adds nothing to the sums.
TEST_F(InfluenceCapTest, DiscardedRoundAddsNothing) {
  // Six devices, cohorts of 4, m_min 2: one upload leaves the round short.
  testing::EnrollDevices(t_.db(), 6);
  job_id_ = testing::CreateJobOrDie(
      t_.db(), testing::JobToml("steer", "prox-admm",
                                testing::DefaultPrivacyTable(),
                                testing::DefaultSamplingTable()));
  ASSERT_TRUE(
      jobs::SetJobState(t_.db(), job_id_, jobs::JobState::kRunning).ok());
  Reopen();
  ASSERT_EQ(SubmitAlongE1(1.0, engine_->CohortForTesting()[0]),
            UploadVerdict::kAccepted);
  now_ += 61'000;
  ASSERT_TRUE(engine_->Advance(now_).ok());
  EXPECT_EQ(engine_->iteration(), 0);
  EXPECT_EQ(testing::QueryInt(t_.db(), "SELECT count(*) FROM upload_sums"),
            0);
}

// A job whose rounds committed before schema version 9 gets its sums from
// its committed uploads when its engine starts, and the cap then holds.
TEST_F(InfluenceCapTest, SumsAreRebuiltFromCommittedUploads) {
  StartParticipation();
  const double one = Bound().Norm(1, 3);
  ASSERT_EQ(SubmitAlongE1(0.9999 * one), UploadVerdict::kAccepted);
  Next();
  ASSERT_TRUE(t_.db().Exec("DELETE FROM upload_sums").ok());
  Reopen();
  UploadSums sums(t_.db(), job_id_);
  auto sum = sums.Of("dev-000");
  ASSERT_TRUE(sum.ok());
  EXPECT_EQ(sum->uploads, 1);
  ASSERT_EQ(sum->sum.size(), 3u);
  EXPECT_NEAR(sum->sum[0], 0.9999 * one, 1e-5 * one);
  EXPECT_EQ(SubmitAlongE1(0.9999 * one), UploadVerdict::kSumAboveBound);
}

// A damaged row is refused as a store error, not read as a zero sum.
TEST_F(InfluenceCapTest, DamagedSumIsAStoreErrorNotAZeroSum) {
  StartParticipation();
  ASSERT_EQ(SubmitAlongE1(1.0), UploadVerdict::kAccepted);
  Next();
  ASSERT_TRUE(t_.db().Exec("UPDATE upload_sums SET sum = x'0102'").ok());
  EXPECT_EQ(SubmitAlongE1(1.0), UploadVerdict::kStoreUnavailable);
}

}  // namespace
}  // namespace edgeadmm::rounds
