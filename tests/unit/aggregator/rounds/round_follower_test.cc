// RoundEngine's roles among several gateways (round_follower.cc): a
// coordinator and a follower (a standby) on two connections to one
// database, on SQLite and on PostgreSQL.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "backend_test.h"
#include "edgeadmm/registry/device_registry.h"
#include "edgeadmm/rounds/round_engine.h"
#include "edgeadmm/store/blob.h"
#include "test_database.h"

namespace edgeadmm::rounds {
namespace {

using Role = RoundEngine::Role;

Upload UploadOf(const RoundEngine& e, const std::string& device, double value) {
  Upload u;
  u.device_id = device;
  u.job_id = e.job().id;
  u.round_id = e.round_id();
  u.vector = store::EncodeFloats({value / 8, -value / 16, value / 4});
  return u;
}

class RoundFollowerTest : public testing::BackendTest {
 protected:
  void SetUp() override {
    testing::BackendTest::SetUp();
    if (IsSkipped()) return;
    testing::EnrollDevices(t_.db(), 6);
    // Every device in every round (Poisson q = 1), m_min 1, 10 s deadline.
    job_ = testing::StartEveryoneJob(t_.db(), "job",
                                     testing::DefaultPrivacyTable());
    auto coordinator = RoundEngine::OpenShared(t_.db(), job_, accountant_,
                                               Role::kCoordinator, "gw-a");
    ASSERT_TRUE(coordinator.ok());
    coordinator_ = std::move(coordinator).value();
    ASSERT_TRUE(coordinator_->Advance(now_).ok());
    auto db = store::Database::Open(t_.path());
    ASSERT_TRUE(db.ok());
    standby_db_ = std::make_unique<store::Database>(std::move(db).value());
    auto follower = RoundEngine::OpenShared(*standby_db_, job_, accountant_,
                                            Role::kFollower, "gw-b");
    ASSERT_TRUE(follower.ok());
    follower_ = std::move(follower).value();
    ASSERT_TRUE(follower_->Advance(now_).ok());
  }

  int64_t Count(const std::string& sql) {
    return testing::QueryInt(t_.db(), sql);
  }

  std::vector<double> Ledger(const std::string& scope) {
    auto stmt = t_.db().Prepare(
        "SELECT rdp FROM ledger WHERE scope = ? ORDER BY round_id DESC "
        "LIMIT 1");
    EXPECT_TRUE(stmt.ok());
    stmt->Bind(1, scope);
    EXPECT_TRUE(stmt->StepRow().ok()) << scope;
    return *store::DecodeDoubles(stmt->ColumnBlob(0));
  }

  testing::TempDatabase t_{testing::UsableBackend(GetParam())};
  PrivacyRoundAccountant accountant_;
  int64_t job_ = 0;
  int64_t now_ = 1000;
  std::unique_ptr<RoundEngine> coordinator_;
  std::unique_ptr<store::Database> standby_db_;
  std::unique_ptr<RoundEngine> follower_;
};

TEST_P(RoundFollowerTest, StandbyServesTheRoundAndItsUploadsCommitOnce) {
  ASSERT_TRUE(coordinator_->round_open());
  ASSERT_TRUE(follower_->round_open());
  EXPECT_EQ(follower_->round_id(), coordinator_->round_id());
  EXPECT_EQ(follower_->deadline_ms(), coordinator_->deadline_ms());
  const std::vector<std::string> cohort = coordinator_->CohortForTesting();
  ASSERT_EQ(cohort.size(), 6u);
  EXPECT_EQ(follower_->CohortForTesting(), cohort);
  EXPECT_EQ(follower_->TaskFor(cohort[0]).kind, Task::Kind::kTrain);
  EXPECT_EQ(follower_->TaskFor("not-enrolled").kind, Task::Kind::kWait);

  // Judged as the coordinator judges: identity first.
  EXPECT_EQ(
      follower_->Submit(cohort[1], UploadOf(*follower_, cohort[0], 1), now_),
      UploadVerdict::kIdentityMismatch);
  ASSERT_EQ(
      follower_->Submit(cohort[0], UploadOf(*follower_, cohort[0], 1), now_),
      UploadVerdict::kAccepted);
  ASSERT_EQ(
      follower_->Submit(cohort[1], UploadOf(*follower_, cohort[1], 2), now_),
      UploadVerdict::kAccepted);
  EXPECT_EQ(follower_->TaskFor(cohort[0]).kind, Task::Kind::kWait);
  // The same upload at either gateway: stored once, the same receipt;
  // other bytes: refused.
  EXPECT_EQ(
      follower_->Submit(cohort[0], UploadOf(*follower_, cohort[0], 1), now_),
      UploadVerdict::kDuplicate);
  EXPECT_EQ(coordinator_->Submit(cohort[0],
                                 UploadOf(*coordinator_, cohort[0], 1), now_),
            UploadVerdict::kDuplicate);
  EXPECT_EQ(coordinator_->Submit(cohort[0],
                                 UploadOf(*coordinator_, cohort[0], 5), now_),
            UploadVerdict::kConflictingDuplicate);
  ASSERT_EQ(coordinator_->Submit(cohort[2],
                                 UploadOf(*coordinator_, cohort[2], 3), now_),
            UploadVerdict::kAccepted);
  EXPECT_EQ(
      follower_->Submit(cohort[2], UploadOf(*follower_, cohort[2], 3), now_),
      UploadVerdict::kDuplicate);
  EXPECT_EQ(Count("SELECT count(*) FROM uploads WHERE gateway = 'gw-b'"), 2);
  EXPECT_EQ(Count("SELECT count(*) FROM uploads WHERE gateway = 'gw-a'"), 1);
  const std::vector<double> local0 = Ledger("local:" + cohort[0]);

  // At the deadline the coordinator commits the three, each once.
  const int64_t round = coordinator_->round_id();
  now_ = coordinator_->deadline_ms();
  ASSERT_TRUE(coordinator_->Advance(now_).ok());
  EXPECT_EQ(coordinator_->iteration(), 1);
  EXPECT_EQ(Count("SELECT participants FROM rounds WHERE round_id = " +
                  std::to_string(round) + " AND state = 'committed'"),
            3);
  EXPECT_EQ(Count("SELECT count(*) FROM uploads"), 3);
  EXPECT_EQ(Count("SELECT count(*) FROM ledger WHERE scope = 'central'"), 1);
  EXPECT_EQ(Count("SELECT count(*) FROM ledger WHERE scope LIKE 'local:%'"), 3);

  // The follower moves to the next round with the released model.
  ASSERT_TRUE(follower_->Advance(now_).ok());
  ASSERT_TRUE(follower_->round_open());
  EXPECT_EQ(follower_->round_id(), coordinator_->round_id());
  EXPECT_EQ(follower_->iteration(), 1);
  EXPECT_EQ(follower_->model().z, coordinator_->model().z);
  // The coordinator took the standby's local charge into its own ledger:
  // the device's next upload there composes on it (twice the one charge).
  ASSERT_EQ(coordinator_->Submit(cohort[0],
                                 UploadOf(*coordinator_, cohort[0], 1), now_),
            UploadVerdict::kAccepted);
  const std::vector<double> local1 = Ledger("local:" + cohort[0]);
  ASSERT_EQ(local1.size(), local0.size());
  for (size_t k = 0; k < local0.size(); ++k) {
    EXPECT_DOUBLE_EQ(local1[k], 2 * local0[k]) << k;
  }
}

TEST_P(RoundFollowerTest, NoUploadLandsInACommittedRound) {
  const std::vector<std::string> cohort = coordinator_->CohortForTesting();
  ASSERT_EQ(coordinator_->Submit(cohort[0],
                                 UploadOf(*coordinator_, cohort[0], 1), now_),
            UploadVerdict::kAccepted);
  const int64_t round = coordinator_->round_id();
  const int64_t seen = now_;
  now_ = coordinator_->deadline_ms();
  ASSERT_TRUE(coordinator_->Advance(now_).ok());
  ASSERT_EQ(coordinator_->iteration(), 1);
  // The follower has not looked since: it still serves the committed
  // round, whose upload it refuses when it stores.
  ASSERT_TRUE(follower_->Advance(seen).ok());
  ASSERT_EQ(follower_->round_id(), round);
  EXPECT_EQ(
      follower_->Submit(cohort[1], UploadOf(*follower_, cohort[1], 2), now_),
      UploadVerdict::kStaleRound);
  EXPECT_EQ(Count("SELECT count(*) FROM uploads WHERE round_id = " +
                  std::to_string(round)),
            1);
  EXPECT_EQ(Count("SELECT count(*) FROM ledger WHERE scope = 'local:" +
                  cohort[1] + "'"),
            0);
  // A retransmission of the committed upload still gets its receipt.
  EXPECT_EQ(
      follower_->Submit(cohort[0], UploadOf(*follower_, cohort[0], 1), now_),
      UploadVerdict::kDuplicate);
}

TEST_P(RoundFollowerTest, FollowerWritesNoRoundAndLosesNoneOnLoad) {
  // A second follower opening mid-round leaves the open round open (only a
  // coordinator's Open marks it lost).
  auto another = RoundEngine::OpenShared(*standby_db_, job_, accountant_,
                                         Role::kFollower, "gw-c");
  ASSERT_TRUE(another.ok());
  EXPECT_EQ(Count("SELECT count(*) FROM rounds WHERE state = 'open'"), 1);
  EXPECT_EQ(Count("SELECT count(*) FROM round_cohorts"), 6);
  // Past the deadline a follower closes nothing.
  ASSERT_TRUE((*another)->Advance(coordinator_->deadline_ms() + 1).ok());
  EXPECT_EQ(Count("SELECT count(*) FROM rounds WHERE state = 'open'"), 1);
  EXPECT_TRUE((*another)->round_open());
}

// A device revoked through another connection (the CLI, or another
// gateway's) is refused at the standby: its judge reads the registry.
TEST_P(RoundFollowerTest, DeviceRevokedElsewhereIsRefusedAtTheStandby) {
  const std::vector<std::string> cohort = follower_->CohortForTesting();
  ASSERT_FALSE(cohort.empty());
  EXPECT_TRUE(follower_->DeviceEnabled(cohort[0]));
  registry::DeviceRegistry registry(t_.db());
  ASSERT_TRUE(registry.Disable(cohort[0]).ok());
  EXPECT_FALSE(follower_->DeviceEnabled(cohort[0]));
  EXPECT_EQ(
      follower_->Submit(cohort[0], UploadOf(*follower_, cohort[0], 1), now_),
      UploadVerdict::kDeviceDisabled);
  EXPECT_EQ(Count("SELECT count(*) FROM uploads"), 0);
}

EDGEADMM_INSTANTIATE_BACKENDS(RoundFollowerTest);

// Standbys serve sampled rounds; the jobs whose round state lives in the
// coordinator's memory keep them at 4.04.
TEST(RoundFollowerCanFollowTest, OnlyJobsWithoutCoordinatorMemory) {
  jobs::JobConfig config;
  for (const AlgorithmKind kind :
       {AlgorithmKind::kProxAdmm, AlgorithmKind::kDpSgd}) {
    config.algorithm = kind;
    EXPECT_TRUE(RoundEngine::CanFollow(config)) << static_cast<int>(kind);
  }
  for (const AlgorithmKind kind :
       {AlgorithmKind::kPenaltyPerturbation, AlgorithmKind::kAdmmSharing}) {
    config.algorithm = kind;
    EXPECT_FALSE(RoundEngine::CanFollow(config)) << static_cast<int>(kind);
  }
}

}  // namespace
}  // namespace edgeadmm::rounds
