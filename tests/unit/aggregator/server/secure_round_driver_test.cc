// SecureRoundDriver with two secure-aggregation jobs: the service runs the
// round of the lowest job id, the other job's round stays open and waits;
// when the first job stops (its round discarded) the driver drops its
// SecAgg+ round and starts the waiting one. No network.
#include "edgeadmm/server/secure_round_driver.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "edgeadmm/jobs/job_config.h"
#include "edgeadmm/jobs/job_store.h"
#include "edgeadmm/rounds/round_accountant.h"
#include "edgeadmm/wire/coap_code.h"
#include "test_database.h"

namespace edgeadmm::server {
namespace {

using secure_aggregation::SecAggPhase;

class SecureRoundDriverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::EnrollDevices(t_.db(), 6);
    for (const char* name : {"first", "second"}) {
      const std::string toml =
          testing::JobToml(
              name, "prox-admm",
              "[privacy]\npolicy = \"secure-aggregation\"\nclip = 1.0\n"
              "target_epsilon = 8.0\ndelta = 1e-5\ncentral_budget = 1000.0\n"
              "device_budget = 1000.0\n",
              "[sampling]\nscheme = \"fixed\"\nm = 6\nm_min = 5\n"
              "deadline_seconds = 10\n") +
          "[secure_aggregation]\ndropouts = 1\nphase_seconds = 5\n";
      auto config = jobs::ParseJobConfig(toml);
      ASSERT_TRUE(config.ok()) << config.error().message();
      auto id = jobs::CreateJob(t_.db(), *config, toml);
      ASSERT_TRUE(id.ok());
      ASSERT_TRUE(
          jobs::SetJobState(t_.db(), *id, jobs::JobState::kRunning).ok());
      auto engine = rounds::RoundEngine::Open(t_.db(), *id, accountant_);
      ASSERT_TRUE(engine.ok());
      engines_.push_back(std::move(engine).value());
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

  testing::TempDatabase t_;
  rounds::PrivacyRoundAccountant accountant_;
  std::vector<std::unique_ptr<rounds::RoundEngine>> engines_;
  SecAggService secagg_;
  SecureRoundDriver driver_{secagg_};
  int64_t now_ = 1000;
};

TEST_F(SecureRoundDriverTest, OneRoundAtATimeTheOtherWaits) {
  const int64_t second_round = engines_[1]->open_secure_round()->round_id;
  driver_.Tick(Engines(), now_);
  EXPECT_EQ(driver_.driven_job(), engines_[0]->job().id);
  EXPECT_EQ(secagg_.phase(), SecAggPhase::kAdvertise);
  EXPECT_EQ(secagg_.round()->params().round_id,
            uint64_t(engines_[0]->open_secure_round()->round_id));
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
  EXPECT_EQ(secagg_.round()->params().round_id, uint64_t(second_round));
  EXPECT_EQ(secagg_.phase(), SecAggPhase::kAdvertise);
  EXPECT_EQ(RoundCode(*engines_[1]), wire::kCoapContent);
}

}  // namespace
}  // namespace edgeadmm::server
