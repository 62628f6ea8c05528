// Jobs in the store: creation (enrolling the current devices), lookup and
// state changes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "edgeadmm/jobs/job_config.h"
#include "edgeadmm/result.h"
#include "edgeadmm/store/database.h"

namespace edgeadmm::jobs {

// Job life cycle. Only a running job has rounds.
enum class JobState {
  kCreated,
  kRunning,
  kStopped,
  kCompleted,
  kBudgetExhausted,
  // Cannot go on (a barrier round missed a node past its retries): the
  // reason is in end_reason.
  kFailed
};

const char* JobStateName(JobState s);
// The state of a JobStateName; DATA_LOSS for any other text.
Result<JobState> ParseJobState(const std::string& text);

struct JobRecord {
  int64_t id = 0;
  JobConfig config;  // sigma resolved
  std::string config_text;
  JobState state = JobState::kCreated;
  int64_t n = 0;           // devices enrolled in the job
  std::string end_reason;  // why a finished job ended ("" otherwise)
};

// Creates job `config.name` from its TOML text, enrolling every enabled
// device: n is fixed from then on (paper 002 divides by n). Writes the
// initial model z_0 = 0 (and server state 0) as iteration 0, all in one
// transaction. FAILED_PRECONDITION if σ is unresolved, no device is enabled,
// or a fixed cohort m exceeds n; ALREADY_EXISTS for a duplicate name;
// INVALID_ARGUMENT for a name IsValidJobName refuses.
Result<int64_t> CreateJob(store::Database& db, const JobConfig& config,
                          std::string_view config_text);

// Loads a job by name / id: NOT_FOUND if absent, DATA_LOSS if its stored
// config no longer parses.
Result<JobRecord> FindJob(store::Database& db, std::string_view name);
Result<JobRecord> LoadJob(store::Database& db, int64_t id);
// All jobs by id.
Result<std::vector<JobRecord>> ListJobs(store::Database& db);
// Every job's id and state by id, no config parsed (a secure job's parse
// plans its DDG noise: seconds of CPU at 1,000 devices).
struct JobStateRow {
  int64_t id = 0;
  JobState state = JobState::kCreated;
};
Result<std::vector<JobStateRow>> ListJobStates(store::Database& db);
// Sets the state and the end reason (cleared when empty). NOT_FOUND if the
// job is absent.
Status SetJobState(store::Database& db, int64_t id, JobState state,
                   std::string_view end_reason = {});
// The ids of the devices enrolled in the job, sorted.
Result<std::vector<std::string>> JobDevices(store::Database& db, int64_t id);

}  // namespace edgeadmm::jobs
