// SecureRoundDriver with two secure-aggregation jobs: the service runs the
// round of the lowest job id, the other job's round stays open and waits;
// when the first job stops (its round discarded) the driver drops its
// SecAgg+ round and starts the waiting one. Six SDK device sessions run a
// round's phases: the survivors' charges are in the store before the sum is
// unmasked (a crash right after the unmasking keeps them), the commit adds
// none, and a charge that cannot be stored aborts the phases unmasked. A
// restart (new engines, driver and service on the same store and round
// log) resumes the round to the plain sum, charging a logged close whose
// charge the crash lost, or aborts it past its deadline or without a log.
// No network.
#include "edgeadmm/server/secure_round_driver.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "edgeadmm/jobs/job_config.h"
#include "edgeadmm/jobs/job_store.h"
#include "edgeadmm/rounds/round_accountant.h"
#include "edgeadmm/store/write_batch.h"
#include "edgeadmm/wire/coap_code.h"
#include "secagg_session_devices.h"
#include "test_database.h"

namespace edgeadmm::server {
namespace {

using secure_aggregation::SecAggPhase;

class SecureRoundDriverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::EnrollDevices(t_.db(), 6);
    for (const char* name : {"first", "second"}) {
      testing::SecureJob job;
      job.name = name;
      job.m = 6;
      job.m_min = 5;
      job.dropouts = 1;
      job.phase_seconds = 5;
      const int64_t id =
          testing::CreateJobOrDie(t_.db(), testing::SecureJobToml(job));
      ASSERT_TRUE(
          jobs::SetJobState(t_.db(), id, jobs::JobState::kRunning).ok());
      auto engine = rounds::RoundEngine::Open(t_.db(), id, accountant_);
      ASSERT_TRUE(engine.ok());
      engines_.push_back(std::move(engine).value());
      if (first_job_ == 0) first_job_ = id;
      ASSERT_TRUE(engines_.back()->Advance(now_).ok());
      ASSERT_NE(engines_.back()->open_secure_round(), nullptr);
    }
  }

  std::vector<rounds::RoundEngine*> Engines() const {
    return {engines_[0].get(), engines_[1].get()};
  }
  // Phase 0's answer for the first cohort member of `engine`'s round.
  uint8_t RoundCode(const rounds::RoundEngine& engine) const {
    return secagg_.Round(engine.open_secure_round()->cohort[0]).code;
  }

  // The six members of the first job's round join its phases (the driver
  // started them).
  void JoinFirstRound() {
    const rounds::SecureRound& round = *engines_[0]->open_secure_round();
    for (uint32_t i = 0; i < round.cohort.size(); ++i) {
      std::vector<uint32_t> x(round.plan.mask_length, 0);
      x[0] = i + 1;  // any words below 2^b: the sum is not decoded here
      devices_.JoinFromService(secagg_, round.cohort[i], std::move(x), 40 + i);
    }
  }
  // The driver, logging to a fresh round log (`name` and this fixture's
  // address), starts the first job's round and its six members join;
  // returns the round.
  rounds::SecureRound StartLoggedRound(const std::string& name) {
    log_prefix_ = ::testing::TempDir() + "/" + name +
                  std::to_string(reinterpret_cast<uintptr_t>(this)) +
                  ".secagg-job-";
    driver_.set_log_prefix(log_prefix_);
    driver_.Tick(Engines(), now_);
    const rounds::SecureRound round = *engines_[0]->open_secure_round();
    JoinFirstRound();
    return round;
  }
  // Whether the first job's round log (StartLoggedRound's) is on disk.
  bool RoundLogLeft() const {
    std::FILE* f =
        std::fopen((log_prefix_ + std::to_string(first_job_)).c_str(), "rb");
    const bool left = f != nullptr;
    if (left) std::fclose(f);
    return left;
  }
  // The crash and the restart: the engines, driver and service are gone;
  // new ones on the same store and round log (StartLoggedRound's), the
  // driver ticked once, a second later.
  void Restart() {
    engines_.clear();
    for (int64_t job : {first_job_, first_job_ + 1}) {
      auto engine = rounds::RoundEngine::Open(t_.db(), job, accountant_);
      ASSERT_TRUE(engine.ok());
      engines_.push_back(std::move(engine).value());
    }
    restarted_rounds_ = std::make_unique<SecAggRounds>(1);
    restarted_driver_ = std::make_unique<SecureRoundDriver>(*restarted_rounds_);
    restarted_driver_->set_log_prefix(log_prefix_);
    now_ += 1000;
    restarted_driver_->Tick(Engines(), now_);
  }
  int64_t LedgerRows(int64_t round_id, const std::string& where = "1") {
    auto stmt = t_.db().Prepare("SELECT count(*) FROM ledger WHERE job_id = " +
                                std::to_string(first_job_) +
                                " AND round_id = " + std::to_string(round_id) +
                                " AND " + where);
    EXPECT_TRUE(stmt.ok());
    EXPECT_TRUE(stmt->StepRow().ok());
    return stmt->ColumnInt(0);
  }

  testing::TempDatabase t_;
  testing::SecAggSessionDevices<8, 16, 6> devices_;
  int64_t first_job_ = 0;
  rounds::PrivacyRoundAccountant accountant_;
  std::vector<std::unique_ptr<rounds::RoundEngine>> engines_;
  SecAggRounds rounds_{1};  // one round at a time
  SecAggService& secagg_ = rounds_.slot(0);
  SecureRoundDriver driver_{rounds_};
  int64_t now_ = 1000;
  std::string log_prefix_;                          // StartLoggedRound's
  std::unique_ptr<SecAggRounds> restarted_rounds_;  // Restart's
  std::unique_ptr<SecureRoundDriver> restarted_driver_;
};

TEST_F(SecureRoundDriverTest, OneRoundAtATimeTheOtherWaits) {
  const int64_t second_round = engines_[1]->open_secure_round()->round_id;
  driver_.Tick(Engines(), now_);
  EXPECT_EQ(driver_.driven_job(), engines_[0]->job().id);
  EXPECT_EQ(secagg_.phase(), SecAggPhase::kAdvertise);
  EXPECT_EQ(
      secagg_.round()->params().round_id,
      SecAggRoundId(uint64_t(engines_[0]->job().id),
                    uint64_t(engines_[0]->open_secure_round()->round_id)));
  // The second job's round waits, open, through more ticks.
  for (int k = 0; k < 3; ++k) driver_.Tick(Engines(), ++now_);
  EXPECT_EQ(driver_.driven_job(), engines_[0]->job().id);
  ASSERT_NE(engines_[1]->open_secure_round(), nullptr);
  EXPECT_EQ(engines_[1]->open_secure_round()->round_id, second_round);
  // The first job stops: its round is discarded, the second one starts.
  ASSERT_TRUE(jobs::SetJobState(t_.db(), engines_[0]->job().id,
                                jobs::JobState::kStopped)
                  .ok());
  ASSERT_TRUE(engines_[0]->Advance(++now_).ok());
  ASSERT_EQ(engines_[0]->open_secure_round(), nullptr);
  driver_.Tick(Engines(), ++now_);
  EXPECT_EQ(driver_.driven_job(), engines_[1]->job().id);
  EXPECT_EQ(
      secagg_.round()->params().round_id,
      SecAggRoundId(uint64_t(engines_[1]->job().id), uint64_t(second_round)));
  EXPECT_EQ(secagg_.phase(), SecAggPhase::kAdvertise);
  EXPECT_EQ(RoundCode(*engines_[1]), wire::kCoapContent);
}

// A crash right after the phases unmasked the sum (the sum is in the
// service's memory; the engine is gone before the driver hands it over):
// the survivors' central and local charges are in the store.
TEST_F(SecureRoundDriverTest, ChargesAreStoredBeforeTheSumIsUnmasked) {
  driver_.Tick(Engines(), now_);
  ASSERT_EQ(driver_.driven_job(), engines_[0]->job().id);
  const rounds::SecureRound round = *engines_[0]->open_secure_round();
  JoinFirstRound();
  const std::vector<uint32_t> all = {0, 1, 2, 3, 4, 5};
  for (int phase = 1; phase <= 3; ++phase) {
    devices_.Phase(secagg_, phase, all, now_);
  }
  // Charged as the masked inputs' phase closed, before any reveal.
  EXPECT_EQ(LedgerRows(round.round_id, "scope LIKE 'local:%'"), 6);
  devices_.Phase(secagg_, 4, all, now_);
  ASSERT_TRUE(secagg_.sum().has_value());
  const int64_t rows = LedgerRows(round.round_id);
  engines_.clear();  // the crash: the driver never hands the sum over
  auto reopened = rounds::RoundEngine::Open(t_.db(), first_job_, accountant_);
  ASSERT_TRUE(reopened.ok());
  EXPECT_EQ(LedgerRows(round.round_id), rows);
  for (const std::string& id : round.cohort) {
    EXPECT_EQ(LedgerRows(round.round_id, "scope = 'local:" + id + "'"), 1)
        << id;
  }
  EXPECT_GT(LedgerRows(round.round_id, "scope NOT LIKE 'local:%'"), 0);
  EXPECT_GT((*reopened)->central_epsilon(), 0);
}

// Without a crash the driver commits the sum; the commit adds no ledger row.
TEST_F(SecureRoundDriverTest, CommitAfterTheChargeAddsNoRow) {
  driver_.Tick(Engines(), now_);
  const rounds::SecureRound round = *engines_[0]->open_secure_round();
  JoinFirstRound();
  const std::vector<uint32_t> all = {0, 1, 2, 3, 4, 5};
  for (int phase = 1; phase <= 3; ++phase) {
    devices_.Phase(secagg_, phase, all, now_);
  }
  const int64_t rows = LedgerRows(round.round_id);
  const double charged = engines_[0]->central_epsilon();
  ASSERT_GT(rows, 6);
  devices_.Phase(secagg_, 4, all, now_);
  driver_.Tick(Engines(), ++now_);
  // The first job's round committed; the service moved to the second's.
  EXPECT_EQ(driver_.driven_job(), engines_[1]->job().id);
  EXPECT_EQ(engines_[0]->iteration(), 1);
  EXPECT_EQ(engines_[0]->released_round_id(), round.round_id);
  EXPECT_EQ(LedgerRows(round.round_id), rows);
  EXPECT_DOUBLE_EQ(engines_[0]->central_epsilon(), charged);
}

// The charge cannot be stored (the round is no longer open in the store):
// the phases abort as the masked inputs' phase closes, nothing unmasked,
// nothing charged.
TEST_F(SecureRoundDriverTest, ChargeThatCannotBeStoredAbortsUnmasked) {
  driver_.Tick(Engines(), now_);
  const rounds::SecureRound round = *engines_[0]->open_secure_round();
  JoinFirstRound();
  const std::vector<uint32_t> all = {0, 1, 2, 3, 4, 5};
  devices_.Phase(secagg_, 1, all, now_);
  devices_.Phase(secagg_, 2, all, now_);
  ASSERT_TRUE(t_.db()
                  .Exec("UPDATE rounds SET state = 'lost' WHERE round_id = " +
                        std::to_string(round.round_id))
                  .ok());
  for (uint32_t i = 0; i < 6; ++i) {
    const Response r = devices_.Post(secagg_, 3, i, devices_.Message(i), now_);
    EXPECT_EQ(r.code,
              i < 5 ? wire::kCoapChanged : wire::kCoapInternalServerError)
        << i;
  }
  EXPECT_EQ(secagg_.phase(), SecAggPhase::kAborted);
  EXPECT_FALSE(secagg_.sum().has_value());
  EXPECT_EQ(LedgerRows(round.round_id), 0);
}

// The daemon restarts mid-phase 3 (three masked inputs accepted): new
// engines on the store, a new driver and service on the same round log.
// The round resumes (same cohort order, the accepted messages back), the
// devices resend or go on, and the round commits the plain sum with one
// charge; no log is left.
TEST_F(SecureRoundDriverTest, RestartResumesThePhasesFromTheLog) {
  const rounds::SecureRound round = StartLoggedRound("resume_");
  const std::vector<uint32_t> all = {0, 1, 2, 3, 4, 5};
  devices_.Phase(secagg_, 1, all, now_);
  devices_.Phase(secagg_, 2, all, now_);
  for (uint32_t i = 0; i < 3; ++i) {
    ASSERT_EQ(devices_.Post(secagg_, 3, i, devices_.Message(i), now_).code,
              wire::kCoapChanged);
  }
  ASSERT_TRUE(RoundLogLeft());
  ASSERT_NO_FATAL_FAILURE(Restart());
  SecureRoundDriver& driver = *restarted_driver_;
  SecAggService& service = restarted_rounds_->slot(0);
  const std::vector<rounds::RoundEngine*> reopened = Engines();
  ASSERT_EQ(driver.driven_job(), first_job_);
  EXPECT_EQ(service.phase(), SecAggPhase::kMaskedInput);
  EXPECT_EQ(service.identities(), round.cohort);
  EXPECT_EQ(reopened[0]->open_secure_round()->rotation_seed,
            round.rotation_seed);
  EXPECT_EQ(LedgerRows(round.round_id), 0);
  devices_.Phase(service, 3, all, now_);  // 0..2 resend, 3..5 are new
  const int64_t rows = LedgerRows(round.round_id);
  EXPECT_EQ(LedgerRows(round.round_id, "scope LIKE 'local:%'"), 6);
  devices_.Phase(service, 4, all, now_);
  ASSERT_TRUE(service.sum().has_value()) << service.abort_reason().message();
  std::vector<uint32_t> plain(round.plan.mask_length, 0);
  plain[0] = 1 + 2 + 3 + 4 + 5 + 6;  // JoinFirstRound's x_i[0] = i + 1
  EXPECT_EQ(*service.sum(), plain);
  driver.Tick(reopened, ++now_);
  EXPECT_EQ(reopened[0]->iteration(), 1);
  EXPECT_EQ(reopened[0]->released_round_id(), round.round_id);
  EXPECT_EQ(LedgerRows(round.round_id), rows);
  EXPECT_FALSE(RoundLogLeft());
}

// The crash comes after phase 3's close reached the round log and before
// the I/O pass's write batch, which holds the charge, is committed: the
// store lacks the charge. The restart replays the close and charges the
// survivors before any of them can reveal; the commit adds no row.
TEST_F(SecureRoundDriverTest, ARestartChargesALoggedCloseWhoseChargeWasLost) {
  const rounds::SecureRound round = StartLoggedRound("lost_charge_");
  const std::vector<uint32_t> all = {0, 1, 2, 3, 4, 5};
  devices_.Phase(secagg_, 1, all, now_);
  devices_.Phase(secagg_, 2, all, now_);
  {
    store::WriteBatch pass(t_.db());  // the daemon's I/O pass
    ASSERT_TRUE(pass.open());
    devices_.Phase(secagg_, 3, all, now_);
    ASSERT_EQ(secagg_.phase(), SecAggPhase::kUnmasking);
  }  // the crash: the batch is never committed
  ASSERT_EQ(LedgerRows(round.round_id), 0);
  ASSERT_NO_FATAL_FAILURE(Restart());
  SecAggService& service = restarted_rounds_->slot(0);
  ASSERT_EQ(service.phase(), SecAggPhase::kUnmasking)
      << service.abort_reason().message();
  EXPECT_EQ(LedgerRows(round.round_id, "scope LIKE 'local:%'"), 6);
  const int64_t rows = LedgerRows(round.round_id);
  EXPECT_GT(rows, 6);  // and the central rows
  devices_.Phase(service, 4, all, now_);
  ASSERT_TRUE(service.sum().has_value()) << service.abort_reason().message();
  restarted_driver_->Tick(Engines(), ++now_);
  EXPECT_EQ(engines_[0]->released_round_id(), round.round_id);
  EXPECT_EQ(LedgerRows(round.round_id), rows);
}

// A restart at the round's deadline, or without its log, cannot resume:
// the round is discarded uncharged and the job's next round opens.
TEST_F(SecureRoundDriverTest, RestartPastTheDeadlineOrWithoutALogAborts) {
  const rounds::SecureRound round = StartLoggedRound("late_");
  devices_.Phase(secagg_, 1, {0, 1, 2, 3, 4, 5}, now_);
  for (const bool late : {true, false}) {
    engines_.clear();
    auto engine = rounds::RoundEngine::Open(t_.db(), first_job_, accountant_);
    ASSERT_TRUE(engine.ok());
    ASSERT_TRUE((*engine)->open_secure_round() != nullptr);
    const int64_t round_id = (*engine)->open_secure_round()->round_id;
    SecAggRounds rounds{1};
    SecureRoundDriver driver{rounds};
    if (late) driver.set_log_prefix(log_prefix_);  // else: no log at all
    const int64_t at = late ? round.deadline_ms : now_ + 1;
    driver.Tick({engine->get()}, at);
    ASSERT_TRUE((*engine)->Advance(at).ok());
    auto state = t_.db().Prepare("SELECT state FROM rounds WHERE round_id = " +
                                 std::to_string(round_id));
    ASSERT_TRUE(state.ok());
    ASSERT_TRUE(state->StepRow().ok());
    EXPECT_EQ(state->ColumnText(0), "discarded") << late;
    EXPECT_EQ(LedgerRows(round_id), 0);
    ASSERT_NE((*engine)->open_secure_round(), nullptr);
    EXPECT_NE((*engine)->open_secure_round()->round_id, round_id);
    EXPECT_FALSE(RoundLogLeft());
    engines_.push_back(std::move(engine).value());
  }
}

}  // namespace
}  // namespace edgeadmm::server
