// RoundEngine under privacy.policy "secure-aggregation" (secure_round.cc):
// a round's open view (cohort, plan, fresh public seed) and tasks, the
// refusal of plain uploads, the commit of a decoded sum (the model is
// SumRounds::ApplySum's; central and local charges; nothing individual
// stored), the abort, the survivor floor, and an audit of every table.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "edgeadmm/algorithms/registry.h"
#include "edgeadmm/jobs/job_config.h"
#include "edgeadmm/jobs/job_store.h"
#include "edgeadmm/rounds/round_engine.h"
#include "edgeadmm/store/blob.h"
#include "test_database.h"

namespace edgeadmm::rounds {
namespace {

constexpr int kDevices = 6;

int64_t Count(store::Database& db, const std::string& sql) {
  auto stmt = db.Prepare(sql);
  EXPECT_TRUE(stmt.ok()) << sql;
  EXPECT_TRUE(stmt->StepRow().ok()) << sql;
  return stmt->ColumnInt(0);
}

class SecureRoundEngineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    devices_ = testing::EnrollDevices(t_.db(), kDevices);
    // The parser resolves sigma to 0 under the policy: the DDG's noise is
    // the round's mechanism (LedgerBook's charges under it are tested with
    // the ledgers).
    const std::string toml = testing::SecureProxAdmmJobToml(
        /*m=*/6, /*m_min=*/4, /*deadline_seconds=*/10, /*dropouts=*/2,
        /*phase_seconds=*/5, /*seed=*/7);
    auto config = jobs::ParseJobConfig(toml);
    ASSERT_TRUE(config.ok()) << config.error().message();
    auto id = jobs::CreateJob(t_.db(), *config, toml);
    ASSERT_TRUE(id.ok());
    job_id_ = *id;
    ASSERT_TRUE(
        jobs::SetJobState(t_.db(), job_id_, jobs::JobState::kRunning).ok());
    auto engine = RoundEngine::Open(t_.db(), job_id_, accountant_);
    ASSERT_TRUE(engine.ok()) << engine.status().str();
    engine_ = std::move(engine).value();
    ASSERT_TRUE(engine_->Advance(now_).ok());
    ASSERT_NE(engine_->open_secure_round(), nullptr);
  }

  std::vector<double> Sum(double scale) const {
    return {0.5 * scale, -0.25 * scale, 0.125 * scale};
  }

  // The model ApplySum gives from the engine's current one.
  ServerModel Expected(const std::vector<double>& sum, int64_t count) {
    ServerModel model = engine_->model();
    auto noise = SamplingRng::Create(3);
    EXPECT_TRUE(noise.ok());
    const jobs::JobConfig& c = engine_->job().config;
    EXPECT_TRUE(algorithms::Get(c.algorithm)
                    .sum_rounds()
                    ->ApplySum(c, engine_->job().n, sum, count, **noise, model)
                    .ok());
    return model;
  }

  int64_t Rows(const std::string& where) {
    return Count(t_.db(), "SELECT count(*) FROM ledger WHERE job_id = " +
                              std::to_string(job_id_) + " AND " + where);
  }

  testing::TempDatabase t_;
  std::vector<std::string> devices_;
  PrivacyRoundAccountant accountant_;
  int64_t job_id_ = 0;
  int64_t now_ = 1000;
  std::unique_ptr<RoundEngine> engine_;
};

TEST_F(SecureRoundEngineTest, OpensWithCohortPlanAndFreshSeed) {
  const SecureRound first = *engine_->open_secure_round();
  EXPECT_EQ(first.round_id, engine_->round_id());
  EXPECT_EQ(first.cohort, engine_->CohortForTesting());
  EXPECT_EQ(first.cohort.size(), 6u);
  EXPECT_EQ(first.plan.min_survivors, 4u);
  EXPECT_EQ(first.plan.mask_length, 4u);  // d = 3 padded
  EXPECT_NE(first.rotation_seed, (std::array<std::byte, 32>{}));
  // A member's task carries the plan and the seed.
  const Task task = engine_->TaskFor(first.cohort[2]);
  EXPECT_EQ(task.kind, Task::Kind::kTrain);
  EXPECT_TRUE(task.secure);
  EXPECT_EQ(task.rotation_seed, first.rotation_seed);
  EXPECT_EQ(task.ddg.bits, first.plan.round.bits);
  EXPECT_EQ(task.ddg.gamma, first.plan.round.gamma);
  EXPECT_EQ(task.ddg.dimension, 3u);
  EXPECT_GE(task.deadline_ms, now_ + 4 * 5000);
  // Plain uploads are refused: the phases are the only way in.
  Upload u;
  u.device_id = first.cohort[0];
  u.job_id = job_id_;
  u.round_id = first.round_id;
  u.vector = store::EncodeFloats({0.1, 0.2, 0.3});
  EXPECT_EQ(engine_->Submit(first.cohort[0], u, now_),
            UploadVerdict::kSecureAggregationOnly);
  // The engine's deadline does not close it: the server does.
  now_ += 3600 * 1000;
  ASSERT_TRUE(engine_->Advance(now_).ok());
  EXPECT_EQ(engine_->round_id(), first.round_id);
  // The next round has another seed.
  ASSERT_TRUE(engine_->AbortSecureRound(first.round_id, "test", now_).ok());
  ASSERT_TRUE(engine_->Advance(now_).ok());
  ASSERT_NE(engine_->open_secure_round(), nullptr);
  EXPECT_NE(engine_->open_secure_round()->round_id, first.round_id);
  EXPECT_NE(engine_->open_secure_round()->rotation_seed, first.rotation_seed);
}

TEST_F(SecureRoundEngineTest, CommitsTheSumWithCentralAndLocalCharges) {
  const SecureRound round = *engine_->open_secure_round();
  const std::vector<std::string> survivors(round.cohort.begin(),
                                           round.cohort.begin() + 5);
  const std::vector<double> sum = Sum(1.0);
  const ServerModel expected = Expected(sum, 5);
  ASSERT_NE(expected.z, engine_->model().z);
  ASSERT_TRUE(
      engine_->CommitSecureSum(round.round_id, survivors, sum, now_).ok());
  EXPECT_EQ(engine_->iteration(), 1);
  EXPECT_EQ(engine_->model().z, expected.z);
  EXPECT_EQ(engine_->model().state, expected.state);
  EXPECT_EQ(engine_->released_participants(), 5);
  const std::string r = std::to_string(round.round_id);
  EXPECT_EQ(Count(t_.db(), "SELECT participants FROM rounds WHERE round_id = " +
                               r + " AND state = 'committed'"),
            5);
  EXPECT_GT(Rows("round_id = " + r + " AND scope NOT LIKE 'local:%'"), 0);
  EXPECT_GT(engine_->central_epsilon(), 0);
  for (const std::string& id : survivors) {
    EXPECT_EQ(Rows("round_id = " + r + " AND scope = 'local:" + id + "'"), 1)
        << id;
  }
  EXPECT_EQ(
      Rows("round_id = " + r + " AND scope = 'local:" + round.cohort[5] + "'"),
      0);
  EXPECT_EQ(Count(t_.db(), "SELECT count(*) FROM uploads"), 0);
  // The round is over: the same id again is refused.
  EXPECT_EQ(engine_->CommitSecureSum(round.round_id, survivors, sum, now_),
            Status::FailedPrecondition());
}

TEST_F(SecureRoundEngineTest, AbortChangesNothing) {
  const SecureRound round = *engine_->open_secure_round();
  const ServerModel before = engine_->model();
  const int64_t ledger = Count(t_.db(), "SELECT count(*) FROM ledger");
  ASSERT_TRUE(engine_->AbortSecureRound(round.round_id, "test", now_).ok());
  EXPECT_EQ(engine_->iteration(), 0);
  EXPECT_EQ(engine_->model().z, before.z);
  EXPECT_EQ(Count(t_.db(), "SELECT count(*) FROM ledger"), ledger);
  EXPECT_EQ(Count(t_.db(), "SELECT count(*) FROM rounds WHERE round_id = " +
                               std::to_string(round.round_id) +
                               " AND state = 'discarded'"),
            1);
  EXPECT_EQ(Count(t_.db(), "SELECT count(*) FROM models"), 1);
  EXPECT_EQ(engine_->AbortSecureRound(round.round_id, "again", now_),
            Status::FailedPrecondition());
}

TEST_F(SecureRoundEngineTest, RefusesBelowTheFloorAndForeignSurvivors) {
  const SecureRound round = *engine_->open_secure_round();
  std::vector<std::string> repeated(4, round.cohort[0]);
  EXPECT_EQ(engine_->CommitSecureSum(round.round_id, repeated, Sum(1), now_),
            Status::InvalidArgument());
  std::vector<std::string> foreign = {round.cohort[0], round.cohort[1],
                                      round.cohort[2], "nobody"};
  EXPECT_EQ(engine_->CommitSecureSum(round.round_id, foreign, Sum(1), now_),
            Status::InvalidArgument());
  EXPECT_EQ(
      engine_->CommitSecureSum(round.round_id + 1, round.cohort, Sum(1), now_),
      Status::FailedPrecondition());
  // Nothing happened: the round is open, nothing charged or released.
  EXPECT_EQ(engine_->round_id(), round.round_id);
  EXPECT_EQ(engine_->iteration(), 0);
  EXPECT_EQ(Count(t_.db(), "SELECT count(*) FROM ledger"), 0);
  // Four (the floor) commit.
  const std::vector<std::string> four(round.cohort.begin(),
                                      round.cohort.begin() + 4);
  EXPECT_TRUE(
      engine_->CommitSecureSum(round.round_id, four, Sum(1), now_).ok());
  EXPECT_EQ(engine_->iteration(), 1);
}

// Once unmasked, the gateway has seen the sum: a sum that cannot be
// committed discards the round with every survivor's charges.
TEST_F(SecureRoundEngineTest, AnUnmaskedSumThatCannotCommitIsStillCharged) {
  SecureRound round = *engine_->open_secure_round();
  const std::vector<std::string> three(round.cohort.begin(),
                                       round.cohort.begin() + 3);
  const ServerModel before = engine_->model();
  EXPECT_EQ(engine_->CommitSecureSum(round.round_id, three, Sum(1), now_),
            Status::Aborted());
  std::string r = std::to_string(round.round_id);
  EXPECT_EQ(Count(t_.db(), "SELECT count(*) FROM rounds WHERE round_id = " + r +
                               " AND state = 'discarded'"),
            1);
  EXPECT_EQ(engine_->model().z, before.z);
  for (const std::string& id : three) {
    EXPECT_EQ(Rows("round_id = " + r + " AND scope = 'local:" + id + "'"), 1)
        << id;
  }
  EXPECT_GT(Rows("round_id = " + r + " AND scope NOT LIKE 'local:%'"), 0);
  EXPECT_EQ(
      Rows("round_id = " + r + " AND scope = 'local:" + round.cohort[3] + "'"),
      0);
  // A sum the server could not hand over (here: one survivor named twice and
  // one unknown) still charges the survivors it can name.
  ASSERT_TRUE(engine_->Advance(++now_).ok());
  round = *engine_->open_secure_round();
  r = std::to_string(round.round_id);
  ASSERT_TRUE(engine_
                  ->DiscardSecureSum(round.round_id,
                                     {round.cohort[0], round.cohort[0],
                                      round.cohort[1], "nobody"},
                                     "test", now_)
                  .ok());
  EXPECT_EQ(Rows("round_id = " + r + " AND scope LIKE 'local:%'"), 2);
  EXPECT_EQ(engine_->iteration(), 0);
}

// The survivors' charges are durable before any sum exists: a crash right
// after them (the engine destroyed, the store reopened) keeps them with the
// open round, which the restarted engine resumes charged: the same
// survivors charge nothing more, another survivor is refused, and the
// commit adds no row.
TEST_F(SecureRoundEngineTest, ChargeBeforeUnmaskingSurvivesACrash) {
  const SecureRound round = *engine_->open_secure_round();
  const std::vector<std::string> five(round.cohort.begin(),
                                      round.cohort.begin() + 5);
  const std::string r = std::to_string(round.round_id);
  ASSERT_TRUE(engine_->ChargeSecureRound(round.round_id, five).ok());
  EXPECT_TRUE(engine_->open_secure_round()->charged);
  const double charged = engine_->central_epsilon();
  EXPECT_GT(charged, 0);
  const int64_t rows = Count(t_.db(), "SELECT count(*) FROM ledger");
  engine_.reset();  // the crash: nothing more reaches the store
  auto reopened = RoundEngine::Open(t_.db(), job_id_, accountant_);
  ASSERT_TRUE(reopened.ok());
  EXPECT_EQ(Count(t_.db(), "SELECT count(*) FROM rounds WHERE round_id = " + r +
                               " AND state = 'open'"),
            1);
  for (const std::string& id : five) {
    EXPECT_EQ(Rows("round_id = " + r + " AND scope = 'local:" + id + "'"), 1)
        << id;
  }
  EXPECT_EQ(
      Rows("round_id = " + r + " AND scope = 'local:" + round.cohort[5] + "'"),
      0);
  EXPECT_GT(Rows("round_id = " + r + " AND scope NOT LIKE 'local:%'"), 0);
  EXPECT_DOUBLE_EQ((*reopened)->central_epsilon(), charged);
  const SecureRound* resumed = (*reopened)->open_secure_round();
  ASSERT_NE(resumed, nullptr);
  EXPECT_TRUE(resumed->resumed);
  EXPECT_TRUE(resumed->charged);
  EXPECT_EQ(resumed->charged_devices.size(), 5u);
  // The phases close the masked inputs again after the restart: the same
  // survivors are charged already, a sixth is refused (nothing unmasked).
  EXPECT_TRUE((*reopened)->ChargeSecureRound(round.round_id, five).ok());
  EXPECT_EQ((*reopened)->ChargeSecureRound(round.round_id, round.cohort),
            Status::FailedPrecondition());
  EXPECT_EQ(Count(t_.db(), "SELECT count(*) FROM ledger"), rows);
  ASSERT_TRUE(
      (*reopened)->CommitSecureSum(round.round_id, five, Sum(1.0), now_).ok());
  EXPECT_EQ((*reopened)->iteration(), 1);
  EXPECT_EQ(Count(t_.db(), "SELECT count(*) FROM ledger"), rows);
  EXPECT_DOUBLE_EQ((*reopened)->central_epsilon(), charged);
}

// A restart before the charge resumes the open round as it was opened: the
// cohort in the same SecAgg+ order, the same rotation seed (the devices
// encoded with it), the deadline they were told, uncharged; its task is
// the same. A damaged record loses the round instead, uncharged.
TEST_F(SecureRoundEngineTest, RestartResumesTheSameRound) {
  const SecureRound round = *engine_->open_secure_round();
  const Task before = engine_->TaskFor(round.cohort[1]);
  engine_.reset();
  auto reopened = RoundEngine::Open(t_.db(), job_id_, accountant_);
  ASSERT_TRUE(reopened.ok());
  const SecureRound* resumed = (*reopened)->open_secure_round();
  ASSERT_NE(resumed, nullptr);
  EXPECT_TRUE(resumed->resumed);
  EXPECT_FALSE(resumed->charged);
  EXPECT_EQ(resumed->round_id, round.round_id);
  EXPECT_EQ(resumed->cohort, round.cohort);
  EXPECT_EQ(resumed->rotation_seed, round.rotation_seed);
  EXPECT_EQ(resumed->deadline_ms, round.deadline_ms);
  EXPECT_EQ(resumed->plan.min_survivors, round.plan.min_survivors);
  const Task after = (*reopened)->TaskFor(round.cohort[1]);
  EXPECT_TRUE(after.secure);
  EXPECT_EQ(after.round_id, before.round_id);
  EXPECT_EQ(after.rotation_seed, before.rotation_seed);
  EXPECT_EQ(after.deadline_ms, before.deadline_ms);
  // A record naming a device outside the job: lost at the next restart.
  reopened->reset();
  ASSERT_TRUE(t_.db()
                  .Exec("UPDATE secure_rounds SET cohort = cohort || "
                        "char(10) || 'stranger'")
                  .ok());
  auto again = RoundEngine::Open(t_.db(), job_id_, accountant_);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ((*again)->open_secure_round(), nullptr);
  EXPECT_EQ(Count(t_.db(), "SELECT count(*) FROM rounds WHERE round_id = " +
                               std::to_string(round.round_id) +
                               " AND state = 'lost'"),
            1);
  EXPECT_EQ(Count(t_.db(), "SELECT count(*) FROM ledger"), 0);
}

// Charged before unmasking, the commit (and a discard) charge nothing more:
// the ledger holds exactly one charge of the round.
TEST_F(SecureRoundEngineTest, ChargedRoundEndsWithoutASecondCharge) {
  SecureRound round = *engine_->open_secure_round();
  const std::vector<std::string> five(round.cohort.begin(),
                                      round.cohort.begin() + 5);
  ASSERT_TRUE(engine_->ChargeSecureRound(round.round_id, five).ok());
  const int64_t rows = Count(t_.db(), "SELECT count(*) FROM ledger");
  const double charged = engine_->central_epsilon();
  EXPECT_GT(rows, 5);  // 5 local rows and the central ones
  // A second call changes nothing.
  ASSERT_TRUE(engine_->ChargeSecureRound(round.round_id, five).ok());
  EXPECT_EQ(Count(t_.db(), "SELECT count(*) FROM ledger"), rows);
  ASSERT_TRUE(
      engine_->CommitSecureSum(round.round_id, five, Sum(1.0), now_).ok());
  EXPECT_EQ(engine_->iteration(), 1);
  EXPECT_EQ(Count(t_.db(), "SELECT count(*) FROM ledger"), rows);
  EXPECT_DOUBLE_EQ(engine_->central_epsilon(), charged);
  // The store holds that one charge: an engine reopened on it reads the
  // same ε.
  auto again = RoundEngine::Open(t_.db(), job_id_, accountant_);
  ASSERT_TRUE(again.ok());
  EXPECT_DOUBLE_EQ((*again)->central_epsilon(), charged);
  // A survivor that was not charged is refused: the round is discarded
  // with no row added.
  ASSERT_TRUE(engine_->Advance(++now_).ok());
  round = *engine_->open_secure_round();
  const std::vector<std::string> four(round.cohort.begin(),
                                      round.cohort.begin() + 4);
  ASSERT_TRUE(engine_->ChargeSecureRound(round.round_id, four).ok());
  const int64_t rows4 = Count(t_.db(), "SELECT count(*) FROM ledger");
  EXPECT_EQ(engine_->CommitSecureSum(round.round_id, five, Sum(1.0), now_),
            Status::Aborted());
  EXPECT_EQ(Count(t_.db(), "SELECT count(*) FROM ledger"), rows4);
  EXPECT_EQ(engine_->iteration(), 1);
}

// No charge for a round the store no longer holds open, nor another round.
TEST_F(SecureRoundEngineTest, ChargeRefusesARoundNotOpen) {
  const SecureRound round = *engine_->open_secure_round();
  EXPECT_EQ(engine_->ChargeSecureRound(round.round_id + 1, round.cohort),
            Status::FailedPrecondition());
  // Another process closed it (the CLI's view of a stopped job).
  ASSERT_TRUE(t_.db()
                  .Exec("UPDATE rounds SET state = 'discarded' WHERE "
                        "round_id = " +
                        std::to_string(round.round_id))
                  .ok());
  EXPECT_EQ(engine_->ChargeSecureRound(round.round_id, round.cohort),
            Status::FailedPrecondition());
  EXPECT_EQ(Count(t_.db(), "SELECT count(*) FROM ledger"), 0);
  EXPECT_FALSE(engine_->open_secure_round()->charged);
}

// The database after committed secure rounds: every table is read, and the
// only vectors it holds are the released models and the ledgers' curves;
// no upload, no per-device sum, no cohort.
TEST_F(SecureRoundEngineTest, StoreHoldsNoIndividualVector) {
  for (int k = 1; k <= 3; ++k) {
    const SecureRound round = *engine_->open_secure_round();
    ASSERT_TRUE(
        engine_->CommitSecureSum(round.round_id, round.cohort, Sum(k), now_)
            .ok());
    ASSERT_TRUE(engine_->Advance(++now_).ok());
  }
  auto tables =
      t_.db().Prepare("SELECT name FROM sqlite_master WHERE type = 'table'");
  ASSERT_TRUE(tables.ok());
  std::set<std::string> with_rows;
  int table_count = 0;
  while (*tables->Step()) {
    const std::string table = tables->ColumnText(0);
    ++table_count;
    auto columns = t_.db().Prepare(
        "SELECT name, type FROM pragma_table_info('" + table + "')");
    ASSERT_TRUE(columns.ok());
    while (*columns->Step()) {
      if (columns->ColumnText(1) != "BLOB") continue;
      const std::string column = columns->ColumnText(0);
      if (Count(t_.db(), "SELECT count(*) FROM " + table + " WHERE " + column +
                             " IS NOT NULL") > 0) {
        with_rows.insert(table + "." + column);
      }
    }
  }
  EXPECT_GE(table_count, 10);
  // devices.psk: the registry's DTLS keys; secure_rounds.rotation_seed:
  // the open round's public seed (one row, the job's newest round).
  EXPECT_EQ(with_rows, (std::set<std::string>{"devices.psk", "ledger.rdp",
                                              "models.z", "models.server_state",
                                              "secure_rounds.rotation_seed"}));
  EXPECT_EQ(Count(t_.db(), "SELECT count(*) FROM secure_rounds"), 1);
  EXPECT_EQ(Count(t_.db(), "SELECT count(*) FROM uploads"), 0);
  EXPECT_EQ(Count(t_.db(), "SELECT count(*) FROM upload_sums"), 0);
  EXPECT_EQ(Count(t_.db(), "SELECT count(*) FROM round_cohorts"), 0);
  EXPECT_EQ(Count(t_.db(), "SELECT count(*) FROM models"), 4);
}

}  // namespace
}  // namespace edgeadmm::rounds
