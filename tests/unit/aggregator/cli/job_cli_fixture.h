// JobCliTest: runs `edgeadmm job ...` against a database in which the
// engine ran rounds (shared by the job CLI tests).
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "edgeadmm/jobs/job_store.h"
#include "edgeadmm/rounds/round_engine.h"
#include "edgeadmm/store/blob.h"
#include "run_command.h"
#include "test_database.h"

namespace edgeadmm {

class JobCliTest : public ::testing::Test {
 protected:
  testing::CommandResult Cli(const std::string& args) {
    return testing::RunCommand(std::string(EDGEADMM_CLI_PATH) + " job " + args +
                               " --db " + t_.path());
  }

  std::string WriteFile(const std::string& name, const std::string& text) {
    const std::string path = t_.dir() + "/" + name;
    std::ofstream(path) << text;
    return path;
  }

  // Runs `rounds` committed rounds of job `name` in process.
  // Job "cli" (prox-admm, 6 devices) with `privacy_table`, 2 rounds trained.
  void CreateAndTrain(const std::string& privacy_table) {
    testing::EnrollDevices(t_.db(), 6);
    ASSERT_EQ(Cli("create " +
                  WriteFile("job.toml",
                            testing::JobToml("cli", "prox-admm", privacy_table,
                                             testing::DefaultSamplingTable())))
                  .exit_code,
              0);
    ASSERT_EQ(Cli("start cli").exit_code, 0);
    Train("cli", 2);
  }

  // `close_last`: one more Advance commits the last round.
  void Train(const std::string& name, int rounds, bool close_last = false) {
    RunRounds(name,
              std::vector<std::vector<double>>(rounds, {0.5, -0.25, 0.125}),
              nullptr, close_last);
  }

  // Runs one committed round of job `name` per entry of `steps`: every
  // cohort member uploads (step, 0, 0); each model is scored on `validator`.
  void TrainValidated(const std::string& name, const std::vector<double>& steps,
                      const rounds::Validator& validator) {
    std::vector<std::vector<double>> uploads;
    for (double step : steps) uploads.push_back({step, 0.0, 0.0});
    RunRounds(name, uploads, &validator, true);
  }

  // One round of job `name` per entry of `uploads`, in which every cohort
  // member uploads that vector; models scored on `validator` (may be null).
  void RunRounds(const std::string& name,
                 const std::vector<std::vector<double>>& uploads,
                 const rounds::Validator* validator, bool close_last) {
    auto job = jobs::FindJob(t_.db(), name);
    ASSERT_TRUE(job.ok());
    rounds::PrivacyRoundAccountant accountant;
    auto engine = rounds::RoundEngine::Open(t_.db(), job->id, accountant);
    ASSERT_TRUE(engine.ok());
    rounds::RoundEngine& e = **engine;
    if (validator != nullptr) e.set_validator(validator);
    for (const std::vector<double>& values : uploads) {
      ASSERT_TRUE(e.Advance(0).ok());
      ASSERT_TRUE(e.round_open());
      for (const std::string& d : e.CohortForTesting()) {
        rounds::Upload u{d, job->id, e.round_id(), store::EncodeFloats(values),
                         {}};
        ASSERT_TRUE(rounds::IsSuccess(e.Submit(d, u, 0)));
      }
    }
    if (close_last) {
      ASSERT_TRUE(e.Advance(0).ok());
    }
  }

  // The round id that released iteration `iteration` of the only job.
  int64_t RoundOf(int64_t iteration) {
    auto stmt = t_.db().Prepare("SELECT round_id FROM models WHERE iteration = " +
                                std::to_string(iteration));
    EXPECT_TRUE(stmt.ok());
    EXPECT_TRUE(stmt->StepRow().ok());
    return stmt->ColumnInt(0);
  }

  testing::TempDatabase t_;
};

}  // namespace edgeadmm
