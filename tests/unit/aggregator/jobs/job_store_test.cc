#include "edgeadmm/jobs/job_store.h"

#include <gtest/gtest.h>

#include "backend_test.h"
#include "edgeadmm/registry/device_registry.h"
#include "test_database.h"

namespace edgeadmm::jobs {
namespace {

std::string Toml(const std::string& name) {
  return testing::JobToml(name, "prox-admm", testing::DefaultPrivacyTable(),
                          testing::DefaultSamplingTable());
}

// The same bodies on SQLite and on PostgreSQL.
class JobStoreTest : public testing::BackendTest {};

TEST_P(JobStoreTest, CreateEnrollsEnabledDevicesAndWritesZeroModel) {
  testing::TempDatabase t(GetParam());
  testing::EnrollDevices(t.db(), 6);
  ASSERT_TRUE(registry::DeviceRegistry(t.db()).Disable("dev-002").ok());
  const int64_t id = testing::CreateJobOrDie(t.db(), Toml("j1"));
  auto job = LoadJob(t.db(), id);
  ASSERT_TRUE(job.ok());
  EXPECT_EQ(job->n, 5);
  EXPECT_EQ(job->state, JobState::kCreated);
  EXPECT_EQ(job->config.name, "j1");
  EXPECT_DOUBLE_EQ(job->config.sigma, 2.0);
  auto devices = JobDevices(t.db(), id);
  ASSERT_TRUE(devices.ok());
  EXPECT_EQ(*devices, (std::vector<std::string>{"dev-000", "dev-001", "dev-003",
                                                "dev-004", "dev-005"}));
  auto found = FindJob(t.db(), "j1");
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(found->id, id);
  EXPECT_EQ(FindJob(t.db(), "nope").status(), Status::NotFound());
}

// job.device_prefix: the enabled devices whose id begins with it, matched
// byte for byte (no wildcards, case kept); n counts them alone.
TEST_P(JobStoreTest, ADevicePrefixEnrolsOnlyTheDevicesItBegins) {
  testing::TempDatabase t(GetParam());
  testing::EnrollDevices(t.db(), 6);
  registry::DeviceRegistry reg(t.db());
  for (const char* id : {"hvac-1", "hvac-2", "hvac-3", "hvac-4", "hvac-5",
                         "HVAC-6", "hvac_7", "hvac", "xhvac-8"}) {
    ASSERT_TRUE(reg.Add(id).ok()) << id;
  }
  ASSERT_TRUE(reg.Disable("hvac-3").ok());
  const std::string toml = testing::ReplaceOnce(
      Toml("hvac"), "[job]\n", "[job]\ndevice_prefix = \"hvac-\"\n");
  const int64_t id = testing::CreateJobOrDie(t.db(), toml);
  auto job = LoadJob(t.db(), id);
  ASSERT_TRUE(job.ok());
  EXPECT_EQ(job->n, 4);
  EXPECT_EQ(job->config.device_prefix, "hvac-");
  auto devices = JobDevices(t.db(), id);
  ASSERT_TRUE(devices.ok());
  EXPECT_EQ(*devices,
            (std::vector<std::string>{"hvac-1", "hvac-2", "hvac-4", "hvac-5"}));
  // Fixed m = 4: one member fewer is refused, and nothing is written.
  ASSERT_TRUE(reg.Disable("hvac-5").ok());
  auto config =
      ParseJobConfig(testing::ReplaceOnce(toml, "\"hvac\"", "\"h2\""));
  ASSERT_TRUE(config.ok()) << config.error().ToString();
  const std::string before = testing::Snapshot(t.db());
  EXPECT_EQ(CreateJob(t.db(), *config, toml).status(),
            Status::FailedPrecondition());
  EXPECT_EQ(testing::Snapshot(t.db()), before);
}

TEST_P(JobStoreTest, CreateRefusesDuplicatesAndTooFewDevices) {
  testing::TempDatabase t(GetParam());
  auto config = ParseJobConfig(Toml("j"));
  ASSERT_TRUE(config.ok()) << config.error().ToString();
  EXPECT_EQ(CreateJob(t.db(), *config, Toml("j")).status(),
            Status::FailedPrecondition());  // no devices
  testing::EnrollDevices(t.db(), 3);        // fixed m = 4 > 3
  EXPECT_EQ(CreateJob(t.db(), *config, Toml("j")).status(),
            Status::FailedPrecondition());
  testing::EnrollDevices(t.db(), 0);
  registry::DeviceRegistry reg(t.db());
  ASSERT_TRUE(reg.Add("extra").ok());
  ASSERT_TRUE(CreateJob(t.db(), *config, Toml("j")).ok());
  const std::string before = testing::Snapshot(t.db());
  EXPECT_EQ(CreateJob(t.db(), *config, Toml("j")).status(),
            Status::AlreadyExists());
  EXPECT_EQ(testing::Snapshot(t.db()), before);
  JobConfig unresolved = *config;
  unresolved.name = "k";
  unresolved.sigma = -1;
  unresolved.target_epsilon = 1;
  EXPECT_EQ(CreateJob(t.db(), unresolved, Toml("k")).status(),
            Status::FailedPrecondition());
}

TEST_P(JobStoreTest, StateChangesPersist) {
  testing::TempDatabase t(GetParam());
  testing::EnrollDevices(t.db(), 4);
  const int64_t id = testing::CreateJobOrDie(t.db(), Toml("j"));
  ASSERT_TRUE(SetJobState(t.db(), id, JobState::kRunning).ok());
  t.Reopen();
  auto job = LoadJob(t.db(), id);
  ASSERT_TRUE(job.ok());
  EXPECT_EQ(job->state, JobState::kRunning);
  EXPECT_EQ(SetJobState(t.db(), 999, JobState::kRunning), Status::NotFound());
  auto all = ListJobs(t.db());
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 1u);
  // The daemon's pick-up reads states alone (ListJobStates).
  const int64_t other = testing::CreateJobOrDie(t.db(), Toml("k"));
  auto states = ListJobStates(t.db());
  ASSERT_TRUE(states.ok());
  ASSERT_EQ(states->size(), 2u);
  EXPECT_EQ((*states)[0].id, id);
  EXPECT_EQ((*states)[0].state, JobState::kRunning);
  EXPECT_EQ((*states)[1].id, other);
  EXPECT_EQ((*states)[1].state, JobState::kCreated);
}

EDGEADMM_INSTANTIATE_BACKENDS(JobStoreTest);

}  // namespace
}  // namespace edgeadmm::jobs
