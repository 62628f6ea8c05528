// The daemon on the PostgreSQL backend (issue 37, first step): a 2-round job
// of 10 fleet devices over DTLS on loopback, its store a database of the
// test binary's throwaway cluster; `edgeadmm job status` against the same
// database reads the finished job, and the rows are the ones a run on
// SQLite writes.
#include <gtest/gtest.h>

#include <string>

#include "backend_test.h"
#include "edgeadmm/jobs/job_store.h"
#include "fleet_harness.h"
#include "run_command.h"
#include "test_database.h"

namespace edgeadmm {
namespace {

constexpr int kDevices = 10;
constexpr size_t kRecords = 200;

const char kJobToml[] =
    "[job]\nname = \"pg\"\nalgorithm = \"prox-admm\"\nloss = \"logistic\"\n"
    "dimension = 123\nrounds = 2\n"
    "[regularizer]\nkind = \"l2\"\nl2 = 0.01\n"
    "[step]\nlambda = 0.5\ngamma = 2.0\n"
    "[privacy]\npolicy = \"participation\"\nclip = 0.5\nsigma = 0.0\n"
    "delta = 1e-5\ncentral_budget = inf\naudit = true\ndevice_budget = inf\n"
    "[sampling]\nscheme = \"fixed\"\nm = 5\nm_min = 5\n"
    "deadline_seconds = 120\nseed = 37\n";

class FleetPostgresTest : public testing::BackendTest {};

TEST_P(FleetPostgresTest, TwoRoundJobRunsAndTheCliReadsIt) {
  testing::TempDatabase t(GetParam());
  const testing::FleetSetup setup =
      testing::PrepareFleet(t, kDevices, kRecords);
  const testing::FleetRunResult run = testing::RunJobOverDtls(
      t, setup, kJobToml, /*allow_unaccounted_steps=*/true, 120);
  testing::ExpectCleanRun(run, kDevices);
  auto job = jobs::LoadJob(t.db(), run.job);
  ASSERT_TRUE(job.ok());
  EXPECT_EQ(job->state, jobs::JobState::kCompleted);
  EXPECT_EQ(testing::QueryInt(t.db(),
                              "SELECT count(*) FROM rounds WHERE state = "
                              "'committed'"),
            2);
  EXPECT_EQ(testing::QueryInt(t.db(), "SELECT max(iteration) FROM models"), 2);
  // Every accepted upload is stored once: 5 per committed round.
  EXPECT_EQ(testing::QueryInt(t.db(), "SELECT count(*) FROM uploads"), 10);
  const testing::CommandResult status =
      testing::RunCommand(std::string(EDGEADMM_CLI_PATH) +
                          " job status pg --db '" + t.path() + "' 2>&1");
  EXPECT_EQ(status.exit_code, 0) << status.output;
  EXPECT_NE(status.output.find("job pg (id 1): completed"), std::string::npos)
      << status.output;
  EXPECT_NE(status.output.find("iteration 2 / 2"), std::string::npos)
      << status.output;
  EXPECT_NE(status.output.find("last committed round 2 with 5 participants"),
            std::string::npos)
      << status.output;
}

EDGEADMM_INSTANTIATE_BACKENDS(FleetPostgresTest);

}  // namespace
}  // namespace edgeadmm
